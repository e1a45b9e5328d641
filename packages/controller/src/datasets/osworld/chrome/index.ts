import type { OsworldGetter } from "../getter.js";
import { activeUrlGetters } from "./activeUrl.js";
import { appearanceGetters } from "./appearance.js";
import { chromeDbGetters } from "./history.js";
import { activeTabHtmlParseGetter } from "./htmlParse.js";
import { chromePageGetters } from "./pageGetters.js";
import { chromeProfileGetters } from "./profileGetters.js";
import { websiteGetters } from "./website.js";

/** OSWorld's Chrome getters (getters/chrome.py), ported. */
export const chromeGetters: OsworldGetter[] = [
  ...chromeProfileGetters,
  ...chromeDbGetters,
  ...activeUrlGetters,
  ...chromePageGetters,
  activeTabHtmlParseGetter,
  ...appearanceGetters,
  ...websiteGetters,
];
