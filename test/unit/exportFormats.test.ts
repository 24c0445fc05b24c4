import fs from 'node:fs';
import path from 'node:path';
import { EXPORT_FORMAT_MODULES, EXPORT_FORMATS, carriesImages, exportFormatOf } from '../../lib/export/formats';

const formatsDir = path.join(__dirname, '..', '..', 'lib', 'export', 'formats');
/** The files of lib/export/formats that declare no format. */
const SHARED_FILES = ['defineExportFormat.ts', 'index.ts'];

describe('export formats', () => {
  it('declares each format in a module of its own name, every module listed in the registry once', () => {
    const modules = fs.readdirSync(formatsDir).filter((file) => file.endsWith('.ts') && !SHARED_FILES.includes(file));
    expect(modules.map((file) => file.replace(/\.ts$/, '')).sort()).toEqual([...EXPORT_FORMATS].sort());
    expect(new Set(EXPORT_FORMATS).size).toBe(EXPORT_FORMATS.length);
    for (const file of modules) {
      const declared = Object.values(jest.requireActual(path.join(formatsDir, file)) as Record<string, unknown>);
      const name = file.replace(/\.ts$/, '') as (typeof EXPORT_FORMATS)[number];
      expect(declared).toContain(exportFormatOf(name));
    }
  });

  it("keeps the contract's json and parquet first, each format with a title, a description and its own metadata file", () => {
    expect(EXPORT_FORMATS.slice(0, 2)).toEqual(['json', 'parquet']);
    for (const format of EXPORT_FORMAT_MODULES) {
      expect(format.title).not.toBe('');
      expect(format.description).not.toBe('');
    }
    const files = EXPORT_FORMAT_MODULES.map((format) => format.layout.fileName);
    expect(new Set(files).size).toBe(files.length);
  });

  it('carries the images when asked, or always for the formats whose layout holds them', () => {
    expect(EXPORT_FORMATS.filter((name) => carriesImages(name, false))).toEqual(['yolo', 'hf', 'imagefolder']);
    expect(EXPORT_FORMATS.every((name) => carriesImages(name, true))).toBe(true);
  });
});
