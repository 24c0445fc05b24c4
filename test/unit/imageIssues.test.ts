import { pixelIssues, QUALITY_THRESHOLDS } from '../../lib/quality/imageIssues';

const normal = { meanLuma: 128, sharpness: 400 };

function issue(facts: { meanLuma: number; sharpness: number }, type: string) {
  return pixelIssues(facts).find((found) => found.type === type);
}

describe('pixelIssues', () => {
  it('finds nothing wrong with a mid-grey, sharp image', () => {
    expect(pixelIssues(normal)).toEqual([]);
  });

  it('calls an image dark below the luminance threshold, surer the darker it is', () => {
    const { dark } = QUALITY_THRESHOLDS;
    expect(issue({ ...normal, meanLuma: dark }, 'dark')).toBeUndefined();
    const justDark = issue({ ...normal, meanLuma: dark - 1 }, 'dark')!;
    const veryDark = issue({ ...normal, meanLuma: 10 }, 'dark')!;
    const black = issue({ ...normal, meanLuma: 0 }, 'dark')!;
    expect(justDark.confidence).toBeGreaterThanOrEqual(0.5);
    expect(justDark.confidence).toBeLessThan(0.6);
    expect(veryDark.confidence).toBeGreaterThan(justDark.confidence);
    expect(black.confidence).toBe(1);
    expect(pixelIssues({ ...normal, meanLuma: 0 }).map((found) => found.type)).toEqual(['dark']);
  });

  it('calls an image bright above the luminance threshold, surest when white', () => {
    const { bright } = QUALITY_THRESHOLDS;
    expect(issue({ ...normal, meanLuma: bright }, 'bright')).toBeUndefined();
    const justBright = issue({ ...normal, meanLuma: bright + 1 }, 'bright')!;
    const white = issue({ ...normal, meanLuma: 255 }, 'bright')!;
    expect(justBright.confidence).toBeGreaterThanOrEqual(0.5);
    expect(justBright.confidence).toBeLessThan(0.6);
    expect(white.confidence).toBe(1);
    expect(pixelIssues({ ...normal, meanLuma: 255 }).map((found) => found.type)).toEqual(['bright']);
  });

  it('calls an image blurry below the sharpness threshold, surest when flat', () => {
    const { blur } = QUALITY_THRESHOLDS;
    expect(issue({ ...normal, sharpness: blur }, 'blur')).toBeUndefined();
    const slightly = issue({ ...normal, sharpness: blur - 1 }, 'blur')!;
    const flat = issue({ ...normal, sharpness: 0 }, 'blur')!;
    expect(slightly.confidence).toBeGreaterThanOrEqual(0.5);
    expect(slightly.confidence).toBeLessThan(0.6);
    expect(flat.confidence).toBe(1);
  });

  it('reports every issue that applies, and never dark and bright together', () => {
    expect(pixelIssues({ meanLuma: 5, sharpness: 1 }).map((found) => found.type).sort()).toEqual(['blur', 'dark']);
    expect(pixelIssues({ meanLuma: 250, sharpness: 1 }).map((found) => found.type).sort()).toEqual(['blur', 'bright']);
    for (let luma = 0; luma <= 255; luma += 5) {
      const types = pixelIssues({ meanLuma: luma, sharpness: 400 }).map((found) => found.type);
      expect(types.includes('dark') && types.includes('bright')).toBe(false);
      for (const found of pixelIssues({ meanLuma: luma, sharpness: luma / 5 })) {
        expect(found.confidence).toBeGreaterThanOrEqual(0);
        expect(found.confidence).toBeLessThanOrEqual(1);
      }
    }
  });
});
