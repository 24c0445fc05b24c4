export type IssueType = 'duplicates' | 'similar' | 'outliers' | 'blur' | 'dark' | 'bright' | 'broken' | 'mislabel' | 'leakage';

export interface Issue {
  type: IssueType;
  /** 0-1: how sure we are. */
  confidence: number;
  details?: Record<string, unknown>;
}

/** Thresholds on mean luminance (0-255) and Laplacian variance at 512 px; see docs/decisions.md. */
export const QUALITY_THRESHOLDS = { dark: 45, bright: 215, blur: 50 };

const clamp01 = (value: number) => Math.max(0, Math.min(1, value));

/** Per-image issues that need only the pixels of the image itself. */
export function pixelIssues(facts: { meanLuma: number; sharpness: number }): Issue[] {
  const issues: Issue[] = [];
  const { dark, bright, blur } = QUALITY_THRESHOLDS;
  if (facts.meanLuma < dark) issues.push({ type: 'dark', confidence: clamp01(0.5 + (dark - facts.meanLuma) / dark / 2) });
  if (facts.meanLuma > bright) {
    issues.push({ type: 'bright', confidence: clamp01(0.5 + (facts.meanLuma - bright) / (255 - bright) / 2) });
  }
  if (facts.sharpness < blur) issues.push({ type: 'blur', confidence: clamp01(0.5 + (blur - facts.sharpness) / blur / 2) });
  return issues;
}
