import { setPriority } from 'node:os';
import { environmentValue } from '../../bin/environment';
import { threadIdOfThisThread } from './metered';

/**
 * Loaded into every local function container (`functionPreload`) by bench/pipeline.ts with
 * `BENCH_FUNCTION_NICE=<n>`: lowers the container thread's scheduling priority to nice `n` (Linux
 * applies it to the one thread). The emulators (DynamoDB, SQS) and the API gateway run on the main
 * thread, the pipeline's serial bottleneck, which the containers compete with for the machine's
 * cores; on AWS a function's CPU never delays those services. An experiment for the idle machine
 * (docs/consumer.md): the bench's ratio with and without it.
 */
const nice = Number(environmentValue('BENCH_FUNCTION_NICE') ?? '0');
const tid = threadIdOfThisThread();
if (nice > 0 && tid > 0) setPriority(tid, Math.min(19, nice));
