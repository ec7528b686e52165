import type { DeflateRaw } from 'node:zlib';
import { constants, createDeflateRaw, deflateRawSync } from 'node:zlib';

/**
 * What Node's zlib.js drives a stream's native handle with (lib/zlib.js, `processChunkSync`): one
 * synchronous call compresses `in` into `out` and leaves the space it did not use in `writeState`
 * ([output left, input left]); `reset` is zlib's deflateReset followed by the dictionary loaded again.
 */
interface NativeDeflate {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  reset(): void;
}

interface HandleOwner {
  readonly _handle?: Partial<NativeDeflate>;
  readonly _writeState?: Uint32Array;
}

/** Room for incompressible input: stored blocks add 5 bytes per 64 KB, and the end of the stream. */
const outputBound = (inputBytes: number): number => inputBytes + (inputBytes >> 10) + 64;

/**
 * Raw deflate at one level with one preset dictionary (or none), byte for byte what
 * `deflateRawSync(input, { level, dictionary })` returns, for many small inputs.
 *
 * Why: `deflateRawSync` builds a zlib stream (a Node Transform) and a zlib state per call, and
 * loads the dictionary into it: for a 1 KB input that costs more than the compression. This keeps one
 * native handle and resets it between inputs. Where the handle is not what Node's zlib.js uses
 * (another Node.js version), or an input does not finish in one call, it falls back to
 * `deflateRawSync`, so the output never depends on the path taken.
 */
export class DictionaryDeflater {
  /** Held so the handle lives as long as this (a collected stream closes its handle). */
  private stream: DeflateRaw | undefined;
  private native: NativeDeflate | undefined;
  private writeState: Uint32Array | undefined;
  private output = Buffer.alloc(16 * 1024);
  private usable = true;

  constructor(
    private readonly dictionary: Buffer | undefined,
    private readonly level: number,
  ) {}

  deflate(input: Buffer): Buffer {
    const native = this.usable ? this.handle() : undefined;
    if (native && this.writeState) {
      if (this.output.length < outputBound(input.length))
        this.output = Buffer.alloc(outputBound(input.length));
      try {
        native.writeSync(constants.Z_FINISH, input, 0, input.length, this.output, 0, this.output.length);
        const [outputLeft = 0, inputLeft] = this.writeState;
        native.reset();
        // A native error destroys the stream (Node's zlib.js): its output is not used.
        if (this.stream?.destroyed) this.usable = false;
        else if (inputLeft === 0 && outputLeft > 0)
          return Buffer.from(this.output.subarray(0, this.output.length - outputLeft));
      } catch {
        this.usable = false;
      }
    }
    return deflateRawSync(input, { level: this.level, dictionary: this.dictionary });
  }

  private handle(): NativeDeflate | undefined {
    if (this.stream) return this.native;
    const stream = createDeflateRaw({ level: this.level, dictionary: this.dictionary });
    // A native error reaches the stream as an 'error' event: it then only means the fallback is used.
    stream.on('error', () => (this.usable = false));
    const { _handle: handle, _writeState: writeState } = stream as unknown as HandleOwner;
    if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function' || !writeState) {
      this.usable = false;
      stream.destroy();
      return undefined;
    }
    this.stream = stream;
    this.native = handle as NativeDeflate;
    this.writeState = writeState;
    return this.native;
  }
}
