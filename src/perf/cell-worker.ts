// Worker-thread entry of the parallel comparison (tinypool runs runCellTask by name): plans the
// comparison's cells from the plain options, runs the one asked for, sends its progress (the
// finished fraction of the cell) on the port the task brought, and answers with the result in its
// wire form. A worker runs cells one after another, as the serial runner does.
import type { MessagePort } from "node:worker_threads";
import { runCell } from "./cell.js";
import { cellToWire, type CellOutcome } from "./cell-wire.js";
import { planCells, type BenchOptions } from "./runner.js";

export interface CellTask {
  readonly options: BenchOptions;
  /** The cell's index in planCells(options). */
  readonly index: number;
  readonly progress: MessagePort;
}

export function runCellTask(task: CellTask): CellOutcome {
  try {
    const cell = planCells(task.options)[task.index];
    if (cell === undefined) return { ok: false, error: `the comparison has no cell ${task.index}` };
    const r = runCell(cell, (fraction) => task.progress.postMessage(fraction));
    return r.ok ? { ok: true, value: cellToWire(r.value) } : { ok: false, error: r.error };
  } finally {
    task.progress.close();
  }
}
