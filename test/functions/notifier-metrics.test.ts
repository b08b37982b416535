import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { recordNotifierStep } from '../../functions/notifier-metrics';
import type { NotifierStepResult } from '../../shared/runner/notifier-step';

const QUIET: NotifierStepResult = {
  decided: [],
  published: [],
  unpublished: [],
  taken: 0,
  skipped: 0,
  nextDueAtMs: undefined,
  released: false,
};

describe('Function: recordNotifierStep', () => {
  it('warns when the step released what it kept because the state was too large to store', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    recordNotifierStep({ ...QUIET, released: true }, new Metrics({ namespace: 'Unit' }), logger);
    expect(warn).toHaveBeenCalledWith(
      'notifier state too large to keep: everything kept was told now',
      { decided: 0 },
    );
  });

  it('does not warn on an ordinary step', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    recordNotifierStep(QUIET, new Metrics({ namespace: 'Unit' }), logger);
    expect(warn).not.toHaveBeenCalled();
  });
});
