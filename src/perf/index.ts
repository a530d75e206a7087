// The CNI performance comparison (`cnisim bench cni`): flavours, cells on fresh 3-node clusters with
// CPU budgets from the metrics cost model, the runner, and table / JSON / chart / HTML output.
export { FLAVOURS, FLAVOUR_NAMES, isFlavourName, podMtuFor, type Flavour, type FlavourName } from "./flavours.js";
export { runCell, BUDGET_TICK_NS, PROTOCOLS, TEST_PATHS, type CellResult, type CellSpec, type Protocol, type SideMeasure, type TestPath } from "./cell.js";
export { CoreBudget } from "./core-budget.js";
export { Pacer } from "./pacer.js";
export {
  DEFAULT_BENCH_OPTIONS,
  cellLabel,
  checkOptions,
  costModelFor,
  planCells,
  runComparison,
  type BenchOptions,
  type Comparison,
  type ProgressReport,
} from "./runner.js";
export { autoJobs, runComparisonInWorkers } from "./parallel-runner.js";
export { comparisonJson, jsonRecord, type JsonRecord } from "./json.js";
export { formatComparison } from "./table.js";
export { explain, SATURATED } from "./explain.js";
export { cpuSpec, renderHtml, renderSvg, throughputSpec } from "./chart.js";
