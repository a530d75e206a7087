// helper.DefaultNormalizeScore: scales scores to 0..maxPriority by the highest one, optionally reversed.

export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: number[]): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(maxPriority);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const s = Math.trunc((maxPriority * scores[i]!) / max);
    scores[i] = reverse ? maxPriority - s : s;
  }
}
