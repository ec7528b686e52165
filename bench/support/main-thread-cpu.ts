import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux everywhere in practice). */
const ticksPerSecond = 100;

/**
 * CPU time (user and system, in milliseconds) the main thread of this process has used: on Linux
 * from /proc (its thread id is the process id), elsewhere undefined. Node 20 has no per-thread CPU
 * clock, and `process.cpuUsage()` adds up every thread: the function containers' worker threads,
 * the garbage collector's helpers and libuv's pool. The local server's emulators and API gateway all
 * run on the main thread, the pipeline's bottleneck, and its CPU time does not grow when the
 * machine is loaded the way its wall time does. 10 ms resolution.
 */
export function mainThreadCpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the command name (in parentheses, which may hold spaces): utime and stime are
  // the 14th and 15th fields of the line, the 12th and 13th after the name.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}
