import type { OsworldMetric } from "../../metric.js";
import { compareHtmls } from "./html.js";
import { comparePdfImages } from "./pdfImages.js";
import { chromeProfileMetrics } from "./profile.js";
import { chromeTabMetrics } from "./tabs.js";

/** OSWorld's Chrome metrics (metrics/chrome.py), ported. */
export const chromeMetrics: OsworldMetric[] = [...chromeTabMetrics, ...chromeProfileMetrics, compareHtmls, comparePdfImages];
