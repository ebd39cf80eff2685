/**
 * Where `serve` reads its resources: files (`-f`) or a cluster (`--kube`,
 * control-plane/kube/). The control loop (control.ts) is the same for both:
 * it asks the source to compile whenever the source says something changed.
 */
import type { CompileResult, Compiler } from '../compiler/pipeline.js';
import { watchInputs, type Watcher } from './watch.js';

export interface InputSource {
  /**
   * Starts watching. Resolves once the source holds a complete view to
   * compile (files: at once; a cluster: after every kind's first list);
   * from then on `onChange` is called once per burst of changes.
   */
  start(onChange: () => void): Promise<void>;
  /** Compiles what the source holds now, with the control loop's long-lived (incremental) compiler. */
  compile(compiler: Compiler): Promise<CompileResult>;
  close(): void;
}

export class FileSource implements InputSource {
  private watcher: Watcher | undefined;

  constructor(
    private readonly paths: string[],
    private readonly debounceMs?: number,
  ) {}

  async start(onChange: () => void): Promise<void> {
    this.watcher = watchInputs(this.paths, onChange, this.debounceMs);
  }

  compile(compiler: Compiler): Promise<CompileResult> {
    return compiler.compile(this.paths);
  }

  close(): void {
    this.watcher?.close();
  }
}
