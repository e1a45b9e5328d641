/**
 * numpy's `np.argsort(a)` (kind "quicksort", numpy 1.24) of integers: introsort with a median-of-3
 * pivot, insertion sort under 16 elements and heapsort past the depth limit. Its order among equal
 * values is the algorithm's, not a stable one, and OSWorld's check_triangle_position depends on it.
 */

const SMALL_QUICKSORT = 15;

/** numpy's `aheapsort` on `idx[lo..lo+n)`. */
function heapsort(v: readonly number[], idx: number[], lo: number, n: number): void {
  // numpy's heapsort is 1-based over a = tosort - 1.
  const a = (i: number) => idx[lo + i - 1]!;
  const set = (i: number, x: number) => {
    idx[lo + i - 1] = x;
  };
  let i: number;
  let j: number;
  let l: number;
  let tmp: number;
  for (l = n >> 1; l > 0; --l) {
    tmp = a(l);
    for (i = l, j = l << 1; j <= n; ) {
      if (j < n && v[a(j)]! < v[a(j + 1)]!) j += 1;
      if (v[tmp]! < v[a(j)]!) {
        set(i, a(j));
        i = j;
        j += j;
      } else break;
    }
    set(i, tmp);
  }
  for (; n > 1; ) {
    tmp = a(n);
    set(n, a(1));
    n -= 1;
    for (i = 1, j = 2; j <= n; ) {
      if (j < n && v[a(j)]! < v[a(j + 1)]!) j++;
      if (v[tmp]! < v[a(j)]!) {
        set(i, a(j));
        i = j;
        j += j;
      } else break;
    }
    set(i, tmp);
  }
}

/** The position of the most significant bit (numpy's `npy_get_msb`). */
const msb = (n: number) => {
  let depth = 0;
  for (let u = n >>> 1; u; u >>>= 1) depth++;
  return depth;
};

/** `np.argsort(v)` as numpy 1.24 orders it. */
export function npArgsort(v: readonly number[]): number[] {
  const idx = v.map((_, i) => i);
  const num = v.length;
  if (num < 2) return idx;
  const swap = (a: number, b: number) => {
    const t = idx[a]!;
    idx[a] = idx[b]!;
    idx[b] = t;
  };
  let pl = 0;
  let pr = num - 1;
  const stack: number[] = [];
  const depths: number[] = [];
  let cdepth = msb(num) * 2;
  for (;;) {
    if (cdepth < 0) {
      heapsort(v, idx, pl, pr - pl + 1);
    } else {
      while (pr - pl > SMALL_QUICKSORT) {
        const pm = pl + ((pr - pl) >> 1);
        if (v[idx[pm]!]! < v[idx[pl]!]!) swap(pm, pl);
        if (v[idx[pr]!]! < v[idx[pm]!]!) swap(pr, pm);
        if (v[idx[pm]!]! < v[idx[pl]!]!) swap(pm, pl);
        const vp = v[idx[pm]!]!;
        let pi = pl;
        let pj = pr - 1;
        swap(pm, pj);
        for (;;) {
          do ++pi;
          while (v[idx[pi]!]! < vp);
          do --pj;
          while (vp < v[idx[pj]!]!);
          if (pi >= pj) break;
          swap(pi, pj);
        }
        swap(pi, pr - 1);
        if (pi - pl < pr - pi) {
          stack.push(pi + 1, pr);
          pr = pi - 1;
        } else {
          stack.push(pl, pi - 1);
          pl = pi + 1;
        }
        depths.push(--cdepth);
      }
      for (let pi = pl + 1; pi <= pr; ++pi) {
        const vi = idx[pi]!;
        const vp = v[vi]!;
        let pj = pi;
        while (pj > pl && vp < v[idx[pj - 1]!]!) {
          idx[pj] = idx[pj - 1]!;
          pj--;
        }
        idx[pj] = vi;
      }
    }
    if (stack.length === 0) break;
    pr = stack.pop()!;
    pl = stack.pop()!;
    cdepth = depths.pop()!;
  }
  return idx;
}
