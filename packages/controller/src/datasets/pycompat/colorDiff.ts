/**
 * scikit-image's colour difference as OSWorld's document metrics use it: `rgb2lab` (sRGB, D65, 2°
 * observer) and `deltaE_ciede2000` (kL = kC = kH = 1), in scikit-image's arithmetic.
 */

const XYZ_FROM_RGB = [
  [0.412453, 0.35758, 0.180423],
  [0.212671, 0.71516, 0.072169],
  [0.019334, 0.119193, 0.950227],
];
const D65 = [0.95047, 1, 1.08883];

/** `skimage.color.rgb2lab` of one sRGB colour with channels in [0, 1]. */
export function rgb2lab(rgb: readonly [number, number, number]): [number, number, number] {
  const lin = rgb.map((c) => (c > 0.04045 ? ((c + 0.055) / 1.055) ** 2.4 : c / 12.92));
  const xyz = XYZ_FROM_RGB.map((row) => row[0]! * lin[0]! + row[1]! * lin[1]! + row[2]! * lin[2]!);
  const [x, y, z] = xyz.map((v, i) => {
    const t = v / D65[i]!;
    return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
  }) as [number, number, number];
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

/** `_cart2polar_2pi`: radius and angle in [0, 2π). */
function polar(x: number, y: number): [number, number] {
  const t = Math.atan2(y, x);
  return [Math.hypot(x, y), t < 0 ? t + 2 * Math.PI : t];
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** `skimage.color.deltaE_ciede2000(lab1, lab2)`. */
export function deltaE2000(lab1: readonly number[], lab2: readonly number[]): number {
  const [L1, a1, b1] = lab1 as [number, number, number];
  const [L2, a2, b2] = lab2 as [number, number, number];
  let cbar = 0.5 * (Math.hypot(a1, b1) + Math.hypot(a2, b2));
  let c7 = cbar ** 7;
  const scale = 1 + 0.5 * (1 - Math.sqrt(c7 / (c7 + 25 ** 7)));
  const [C1, h1] = polar(a1 * scale, b1);
  const [C2, h2] = polar(a2 * scale, b2);
  const lbar = 0.5 * (L1 + L2);
  const tmp = (lbar - 50) ** 2;
  const lTerm = (L2 - L1) / (1 + (0.015 * tmp) / Math.sqrt(20 + tmp));
  cbar = 0.5 * (C1 + C2);
  const cTerm = (C2 - C1) / (1 + 0.045 * cbar);
  const hDiff = h2 - h1;
  const hSum = h1 + h2;
  const cc = C1 * C2;
  let dH = hDiff > Math.PI ? hDiff - 2 * Math.PI : hDiff < -Math.PI ? hDiff + 2 * Math.PI : hDiff;
  if (cc === 0) dH = 0;
  const dHTerm = 2 * Math.sqrt(cc) * Math.sin(dH / 2);
  let hbar = hSum;
  if (cc !== 0 && Math.abs(hDiff) > Math.PI) hbar += hSum < 2 * Math.PI ? 2 * Math.PI : -2 * Math.PI;
  if (cc === 0) hbar *= 2;
  hbar *= 0.5;
  const T = 1 - 0.17 * Math.cos(hbar - rad(30)) + 0.24 * Math.cos(2 * hbar) + 0.32 * Math.cos(3 * hbar + rad(6)) - 0.2 * Math.cos(4 * hbar - rad(63));
  const hTerm = dHTerm / (1 + 0.015 * cbar * T);
  c7 = cbar ** 7;
  const rc = 2 * Math.sqrt(c7 / (c7 + 25 ** 7));
  const dtheta = rad(30) * Math.exp(-((((hbar * 180) / Math.PI - 275) / 25) ** 2));
  const rTerm = -Math.sin(2 * dtheta) * rc * cTerm * hTerm;
  return Math.sqrt(Math.max(lTerm ** 2 + cTerm ** 2 + hTerm ** 2 + rTerm, 0));
}

/** OSWorld's `_calculate_color_difference` of two 0-255 RGB colours. */
export function rgbDeltaE(rgb1: readonly number[], rgb2: readonly number[]): number {
  const lab = (c: readonly number[]) => rgb2lab([c[0]! / 255, c[1]! / 255, c[2]! / 255]);
  return deltaE2000(lab(rgb1), lab(rgb2));
}
