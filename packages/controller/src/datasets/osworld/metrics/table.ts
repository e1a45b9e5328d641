import type { OsworldMetric } from "../metric.js";
import { compareTableMetric } from "./table/compareTable.js";
import { compareConferenceCityMetric, compareCsvMetric } from "./table/otherMetrics.js";

/** OSWorld's spreadsheet metrics (`metrics/table.py`), ported: compare_table, compare_csv, compare_conference_city_in_order. */
export const tableMetrics: OsworldMetric[] = [compareTableMetric, compareCsvMetric, compareConferenceCityMetric] as OsworldMetric[];
