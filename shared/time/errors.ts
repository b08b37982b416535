/** Base class of the time area's errors. */
export class TimeError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TimeError';
  }
}

export class DurationFormatError extends TimeError {
  constructor(readonly input: string) {
    super(`"${input}" is not a duration: write 90s, 15m, 2h, 1d or HH:MM:SS`);
    this.name = 'DurationFormatError';
  }
}

export class TimestampFormatError extends TimeError {
  constructor(readonly input: string) {
    super(`"${input}" is not a timestamp: expected YYYY-MM-DD HH:MM:SS or DD-Mon-YYYY HH:MM:SS`);
    this.name = 'TimestampFormatError';
  }
}

export class TimeZoneError extends TimeError {
  constructor(
    readonly zone: string,
    options?: ErrorOptions,
  ) {
    super(
      `"${zone}" is not an IANA time zone (for example Asia/Kolkata or Europe/London)`,
      options,
    );
    this.name = 'TimeZoneError';
  }
}
