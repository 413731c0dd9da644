/** How the benchmarks print figures: fixed decimals, a dash for a figure that could not be taken (NaN, ∞). */
export const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');
export const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
export const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
