/**
 * An override (PagerDuty's): `who` carries the pager of `rotation` while `from <= t < until`,
 * whoever the rotation says. A shift swap is two overrides, a cover one. Where two overlap the
 * latest added wins.
 */
export interface Override {
  readonly id: string;
  readonly rotation: string;
  readonly who: string;
  /** Epoch ms. */
  readonly from: number;
  readonly until: number;
  readonly createdBy: string;
  /** Epoch ms: where overrides overlap, the one created last wins. */
  readonly createdAt: number;
}

/** Who is on call for a rotation at an instant, and for how long as far as is known now. */
export interface OnCall {
  readonly who: string;
  /** When this stint began: the last handoff or override boundary at or before the instant. */
  readonly since: number;
  /** When someone else takes over; undefined when nobody else ever does (one member, no override). */
  readonly until: number | undefined;
  /** The override in force, if one is. */
  readonly override?: Override;
}

/** One change of who is on call. */
export interface Handoff {
  /** Epoch ms. */
  readonly at: number;
  readonly from: string;
  readonly to: string;
  /** The override that starts or ends there, if any. */
  readonly override?: Override;
}
