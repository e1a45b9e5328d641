import type { OsworldMetric } from "../metric.js";
import { basicOsMetrics } from "./apps/basicOs.js";
import { gimpMetrics } from "./apps/gimp.js";
import { gimpImageMetrics } from "./apps/gimpImages.js";
import { thunderbirdMetrics } from "./apps/thunderbird.js";
import { thunderbirdFolderMetrics } from "./apps/thunderbirdFolder.js";
import { vlcMetrics } from "./apps/vlc.js";
import { vscodeMetrics } from "./apps/vscode.js";

/**
 * OSWorld's application-settings metrics, ported: VS Code (`vscode.py`), VLC (`vlc.py`, vlcrc),
 * GIMP (`gimp.py`: gimprc and image checks), Thunderbird (`thunderbird.py`) and the OS
 * (`basic_os.py`).
 */
export const appsMetrics: OsworldMetric[] = [
  ...vscodeMetrics,
  ...vlcMetrics,
  ...gimpMetrics,
  ...gimpImageMetrics,
  ...thunderbirdMetrics,
  ...thunderbirdFolderMetrics,
  ...basicOsMetrics,
];
