import fc from 'fast-check';
import { archiveNamesOf, isPlainRelativePath, zipFileName, type NamedRow, type TakenNames } from '../../lib/export/archiveNames';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * A version in memory: images and videos in arrival order, each with the rank the repository gives
 * (earlier ones carrying the same name, case aside), and the frames of the videos.
 */
function version(items: Array<{ name: string; frames?: number }>) {
  const rows: NamedRow[] = [];
  let next = 1;
  items.forEach((item, i) => {
    const top = id(next++);
    const rank = items.slice(0, i).filter((earlier) => earlier.name.toLowerCase() === item.name.toLowerCase()).length;
    const base = { top_id: top, top_file_name: item.name, top_name_rank: rank };
    rows.push({ id: top, kind: item.frames ? 'VIDEO' : 'IMAGE', frame_index: null, ...base });
    for (let frame = 0; frame < (item.frames ?? 0); frame++) rows.push({ id: id(next++), kind: 'VIDEO_FRAME', frame_index: frame, ...base });
  });
  const owned = new Set(items.map((item) => item.name.toLowerCase()));
  const asked: string[][] = [];
  const taken: TakenNames = async (names) => {
    asked.push(names);
    return new Set(names.filter((name) => owned.has(name.toLowerCase())));
  };
  return { rows, taken, asked };
}

async function namesByFileName(items: Array<{ name: string; frames?: number }>) {
  const { rows, taken } = version(items);
  const names = await archiveNamesOf(rows, taken);
  return rows.map((row) => [row.kind === 'VIDEO_FRAME' ? `${row.top_file_name}#${row.frame_index}` : row.top_file_name, names.get(row.id)]);
}

describe('export archive names', () => {
  it('keeps the first file of a name and numbers later ones, case aside', async () => {
    expect(await namesByFileName([{ name: 'a.jpg' }, { name: 'A.JPG' }, { name: 'trip/a.jpg' }, { name: 'a.jpg' }])).toEqual([
      ['a.jpg', 'a.jpg'],
      ['A.JPG', 'A (2).JPG'],
      ['trip/a.jpg', 'trip/a.jpg'],
      ['a.jpg', 'a (3).jpg'],
    ]);
  });

  it('falls back to the media id when a numbered name is some file\'s own name', async () => {
    expect(await namesByFileName([{ name: 'a.jpg' }, { name: 'a (2).jpg' }, { name: 'a.jpg' }])).toEqual([
      ['a.jpg', 'a.jpg'],
      ['a (2).jpg', 'a (2).jpg'],
      ['a.jpg', `a (${id(3)}).jpg`],
    ]);
  });

  it('names frames after their video, and follows a renamed video', async () => {
    expect(await namesByFileName([{ name: 'walk.mp4', frames: 2 }, { name: 'WALK.mp4', frames: 1 }])).toEqual([
      ['walk.mp4', 'walk.mp4'],
      ['walk.mp4#0', 'walk.mp4.frames/000000.jpg'],
      ['walk.mp4#1', 'walk.mp4.frames/000001.jpg'],
      ['WALK.mp4', 'WALK (2).mp4'],
      ['WALK.mp4#0', 'WALK (2).mp4.frames/000000.jpg'],
    ]);
  });

  it('gives a name that is not a plain relative path its plain segments and the media id', async () => {
    expect(await namesByFileName([{ name: '/srv/drop/a.jpg' }, { name: 'x/../b.png' }, { name: 'c\\d.gif' }])).toEqual([
      ['/srv/drop/a.jpg', `srv/drop/a (${id(1)}).jpg`],
      ['x/../b.png', `x/b (${id(2)}).png`],
      ['c\\d.gif', `c/d (${id(3)}).gif`],
    ]);
    expect(isPlainRelativePath('trip/day 1/a.jpg')).toBe(true);
    for (const name of ['', '/a.jpg', 'a//b.jpg', './a.jpg', 'a/../b.jpg', 'a\\b.jpg', 'a\u0000.jpg']) expect(isPlainRelativePath(name)).toBe(false);
  });

  it('asks only about derived names, a round at a time', async () => {
    const { rows, taken, asked } = version([{ name: 'a.jpg' }, { name: 'a.jpg' }, { name: 'a (2).jpg' }]);
    await archiveNamesOf(rows, taken);
    expect(asked).toEqual([['a (2).jpg'], [`a (${id(2)}).jpg`]]);
  });

  it('names every file uniquely (case aside) as a plain path, the same whatever page it is read in', async () => {
    const stems = ['a', 'A', 'a (2)', 'a (3)', 'b', 'dir/a', 'DIR/A', '/abs/a', '../up', 'a.mp4.frames/000000', 'A.MP4.frames/000001'];
    const extensions = ['.jpg', '.JPG', '.mp4', ''];
    const item = fc.record({
      name: fc.tuple(fc.constantFrom(...stems), fc.constantFrom(...extensions)).map(([stem, extension]) => stem + extension),
      frames: fc.nat(2),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 7 }), async (items, pageSize) => {
        const { rows, taken } = version(items);
        const whole = await archiveNamesOf(rows, taken);
        const names = [...whole.values()];
        expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(rows.length);
        for (const name of names) expect(isPlainRelativePath(name)).toBe(true);
        for (let i = 0; i < rows.length; i += pageSize) {
          const page = await archiveNamesOf(rows.slice(i, i + pageSize), taken);
          for (const [key, name] of page) expect(name).toBe(whole.get(key));
        }
      }),
    );
  });

  it('ends the archive name in .zip', () => {
    expect(zipFileName('pets')).toBe('pets.zip');
    expect(zipFileName('pets.ZIP')).toBe('pets.ZIP');
  });
});
