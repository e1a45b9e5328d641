import type { OsworldMetric } from "../metric.js";
import { a11yMetrics } from "./a11y.js";
import { appsMetrics } from "./apps.js";
import { audioMetrics } from "./apps/audios.js";
import { gimpCheckMetrics } from "./apps/gimpChecks.js";
import { gimpCompareMetrics } from "./apps/gimpCompare.js";
import { testSuiteMetrics } from "./apps/testSuite.js";
import { videoMetrics } from "./apps/videos.js";
import { vlcStatusMetrics } from "./apps/vlcStatus.js";
import { chromeMetrics } from "./chrome/index.js";
import { docsMetrics } from "./docs.js";
import { docsFormatMetrics } from "./docsFormat.js";
import { docsTextMetrics } from "./docsText.js";
import { epubMetrics } from "./epub.js";
import { filesMetrics } from "./files.js";
import { generalMetrics } from "./general.js";
import { miscMetrics } from "./misc.js";
import { ocrMetrics } from "./ocr.js";
import { odtHighlightMetrics } from "./odtHighlight.js";
import { slidesMetrics } from "./slides.js";
import { slidesMoreMetrics } from "./slidesMore.js";
import { tableMetrics } from "./table.js";

/** Every OSWorld metric Pincer implements, by name. */
export const OSWORLD_METRICS: ReadonlyMap<string, OsworldMetric> = new Map(
  [
    ...tableMetrics,
    ...slidesMetrics,
    ...docsMetrics,
    ...generalMetrics,
    ...filesMetrics,
    ...appsMetrics,
    ...a11yMetrics,
    ...chromeMetrics,
    ...docsFormatMetrics,
    ...docsTextMetrics,
    ...slidesMoreMetrics,
    ...gimpCheckMetrics,
    ...gimpCompareMetrics,
    ...vlcStatusMetrics,
    ...videoMetrics,
    ...audioMetrics,
    ...odtHighlightMetrics,
    ...epubMetrics,
    ...testSuiteMetrics,
    ...ocrMetrics,
    ...miscMetrics,
  ].map((m) => [m.name, m]),
);
