/**
 * fastdtw 0.3.4's pure-Python implementation (`fastdtw/fastdtw.py`, Salvador and Chan's FastDTW):
 * the series halved (neighbours averaged) until shorter than `radius + 2`, exact DTW there, then at
 * each finer level DTW within the coarser path widened by `radius` cells and doubled. Ported
 * step by step, ties included: a cell takes the first of (i−1, j), (i, j−1), (i−1, j−1) whose cost
 * is not beaten (Python's `min` keeps the first of equal keys; a NaN cost never beats one), and the
 * window keeps, row by row, the first run of cells from where the previous row's run started.
 * fastdtw's compiled module (`_fastdtw.pyx`), used where pip could build it, breaks ties the other
 * way and widens the window by rows of bounds, so its paths and distances can differ.
 */

/** One element of a series: a vector of float64 (fastdtw casts its inputs to `float`). */
export type Vec = Float64Array;

/** `(distance, path)`: the summed cost along the path and the path as [i, j] pairs from (0, 0). */
export interface DtwResult {
  distance: number;
  path: Array<[number, number]>;
}

/** `fastdtw(x, y, radius=1, dist=dist)`. */
export function fastdtw(x: Vec[], y: Vec[], dist: (a: Vec, b: Vec) => number, radius = 1): DtwResult {
  const minTimeSize = radius + 2;
  if (x.length < minTimeSize || y.length < minTimeSize) return dtwWithin(x, y, null, dist);
  const coarse = fastdtw(reduceByHalf(x), reduceByHalf(y), dist, radius);
  return dtwWithin(x, y, expandWindow(coarse.path, x.length, y.length, radius), dist);
}

/** `__reduce_by_half`: the means of consecutive pairs, a trailing odd element dropped. */
function reduceByHalf(x: Vec[]): Vec[] {
  const out: Vec[] = [];
  for (let i = 0; i + 1 < x.length; i += 2) {
    const a = x[i]!;
    const b = x[i + 1]!;
    const m = new Float64Array(a.length);
    for (let k = 0; k < a.length; k++) m[k] = (a[k]! + b[k]!) / 2;
    out.push(m);
  }
  return out;
}

/** `__expand_window`: the coarse path widened by `radius` each way, each cell doubled, then row by row. */
function expandWindow(path: Array<[number, number]>, lenX: number, lenY: number, radius: number): Array<[number, number]> {
  const cells = new Set<number>();
  const add = (a: number, b: number) => {
    // Cells outside the grid are in Python's sets too, but the rows below never ask for them.
    if (a >= 0 && b >= 0 && a < lenX && b < lenY) cells.add(a * lenY + b);
  };
  for (const [i, j] of path) {
    for (let a = -radius; a <= radius; a++) {
      for (let b = -radius; b <= radius; b++) {
        const ci = i + a;
        const cj = j + b;
        add(ci * 2, cj * 2);
        add(ci * 2, cj * 2 + 1);
        add(ci * 2 + 1, cj * 2);
        add(ci * 2 + 1, cj * 2 + 1);
      }
    }
  }
  const window: Array<[number, number]> = [];
  let startJ: number | null = 0;
  for (let i = 0; i < lenX; i++) {
    // Python's range(None, len_y) raises TypeError when the previous row had no cell.
    if (startJ === null) throw new TypeError("'NoneType' object cannot be interpreted as an integer");
    let newStartJ: number | null = null;
    for (let j: number = startJ; j < lenY; j++) {
      if (cells.has(i * lenY + j)) {
        window.push([i, j]);
        if (newStartJ === null) newStartJ = j;
      } else if (newStartJ !== null) break;
    }
    startJ = newStartJ;
  }
  return window;
}

/** `__dtw(x, y, window, dist)`: DTW over the window's cells (every cell when null). */
function dtwWithin(x: Vec[], y: Vec[], window: Array<[number, number]> | null, dist: (a: Vec, b: Vec) => number): DtwResult {
  const lenX = x.length;
  const lenY = y.length;
  const cells = window ?? fullWindow(lenX, lenY);
  // D[i, j] for i in 0..lenX, j in 0..lenY (1-based cells; D[0, 0] = 0), absent = infinity.
  const stride = lenY + 1;
  const slot = new Map<number, number>();
  const cost = new Float64Array(cells.length + 1);
  const prev = new Int32Array(cells.length + 1);
  slot.set(0, 0);
  cost[0] = 0;
  const at = (i: number, j: number): number => {
    const s = slot.get(i * stride + j);
    return s === undefined ? Number.POSITIVE_INFINITY : cost[s]!;
  };
  cells.forEach(([ci, cj], n) => {
    const i = ci + 1;
    const j = cj + 1;
    const dt = dist(x[i - 1]!, y[j - 1]!);
    let best = at(i - 1, j) + dt;
    let from = (i - 1) * stride + j;
    const left = at(i, j - 1) + dt;
    if (left < best) [best, from] = [left, i * stride + j - 1];
    const corner = at(i - 1, j - 1) + dt;
    if (corner < best) [best, from] = [corner, (i - 1) * stride + j - 1];
    slot.set(i * stride + j, n + 1);
    cost[n + 1] = best;
    prev[n + 1] = from;
  });
  const path: Array<[number, number]> = [];
  let key = lenX * stride + lenY;
  while (key !== 0) {
    const i = Math.floor(key / stride);
    const j = key % stride;
    path.push([i - 1, j - 1]);
    const s = slot.get(key);
    // Python's defaultdict gives (inf,) for a cell outside the window, whose [1] raises IndexError.
    if (s === undefined) throw new RangeError("tuple index out of range");
    key = prev[s]!;
  }
  path.reverse();
  return { distance: at(lenX, lenY), path };
}

function fullWindow(lenX: number, lenY: number): Array<[number, number]> {
  const cells: Array<[number, number]> = [];
  for (let i = 0; i < lenX; i++) for (let j = 0; j < lenY; j++) cells.push([i, j]);
  return cells;
}
