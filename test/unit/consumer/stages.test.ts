import { Stages } from '../../../functions/consumer/stages';
import { logger } from '../../../functions/shared/logger';
import { metrics } from '../../../functions/shared/metrics';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';

let emf: EmfCapture;

beforeEach(() => {
  emf = captureEmf();
  // Lines an earlier test held but did not flush are not this test's.
  metrics.publishStoredMetrics();
  emf.blobs.length = 0;
});

afterEach(() => {
  jest.restoreAllMocks();
  emf.restore();
});

const messages = [{ messageId: 'm-1' }, { messageId: 'm-2' }, { messageId: 'm-3' }];
const ids = (batch: readonly { messageId: string }[]): string[] => batch.map((message) => message.messageId);
const flush = (): void => {
  metrics.publishStoredMetrics();
};

describe('consumer stages', () => {
  it('fails the messages a required stage reports, and hands on only the others', async () => {
    // Prepare
    const stages = new Stages();
    const error = new Error('throttled');

    // Act
    const survivors = await stages.required('persons', messages, async () => new Map([['m-2', error]]));

    // Assess
    expect(ids(survivors)).toEqual(['m-1', 'm-3']);
    expect([...stages.failed]).toEqual([['m-2', error]]);
  });

  it('fails every message it was given when a required stage throws', async () => {
    // Prepare
    const stages = new Stages();
    const errorLog = jest.spyOn(logger, 'error').mockImplementation(() => undefined);

    // Act
    const survivors = await stages.required('store', messages, async () => {
      throw Object.assign(new Error('table gone'), { name: 'ResourceNotFoundException' });
    });

    // Assess
    expect(survivors).toEqual([]);
    expect([...stages.failed.keys()]).toEqual(['m-1', 'm-2', 'm-3']);
    expect(stages.failed.get('m-1')!.name).toBe('ResourceNotFoundException');
    expect(errorLog).toHaveBeenCalledWith('The store stage failed', expect.objectContaining({ count: 3 }));
  });

  it('logs and counts a failing best-effort stage, and hands every message on', async () => {
    // Prepare
    const stages = new Stages();
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);

    // Act
    const survivors = await stages.bestEffort('group-types', messages, async () => {
      throw new Error('throttled');
    });
    flush();

    // Assess
    expect(ids(survivors)).toEqual(['m-1', 'm-2', 'm-3']);
    expect(stages.failed.size).toBe(0);
    expect(warn).toHaveBeenCalledWith(
      'The best-effort group-types stage failed',
      expect.objectContaining({ reason: 'Error: throttled' }),
    );
    expect(emf.total('ConsumerStageFailures', { stage: 'group-types' })).toBe(1);
  });

  it('gives each stage only the survivors of the stages before it', async () => {
    // Prepare: the first stage fails m-1, a transform fails m-3.
    const stages = new Stages();
    const seen: string[][] = [];

    // Act
    await stages.required('persons', messages, async (batch) => {
      seen.push(ids(batch));
      return new Map([['m-1', new Error('lost a race')]]);
    });
    const transformed = await stages.transform('plugins', messages, async (batch) => {
      seen.push(ids(batch));
      return {
        handOn: batch.map((message) => ({ ...message, events: 1 })),
        failed: new Map([['m-3', new Error('configs unreadable')]]),
      };
    });
    await stages.bestEffort('ingested-flag', messages, async (batch) => {
      seen.push(ids(batch));
    });

    // Assess
    expect(seen).toEqual([['m-1', 'm-2', 'm-3'], ['m-2', 'm-3'], ['m-2']]);
    expect(transformed).toEqual([{ messageId: 'm-2', events: 1 }]);
  });

  it('does not run a stage left with no message', async () => {
    const stages = new Stages();
    const run = jest.fn(async () => undefined);

    await stages.required('store', [], run);
    await stages.bestEffort('group-types', [], run);

    expect(run).not.toHaveBeenCalled();
  });

  it('records each stage duration under its name, failing or not', async () => {
    // Prepare
    const stages = new Stages();
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);

    // Act
    await stages.required('persons', messages, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await stages.required('store', messages, async () => {
      throw new Error('down');
    });
    flush();

    // Assess
    expect(emf.total('ConsumerStageDuration', { stage: 'persons' })).toBeGreaterThanOrEqual(15);
    expect(emf.values('ConsumerStageDuration')).toHaveLength(2);
  });
});
