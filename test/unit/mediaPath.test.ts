import { MAX_MEDIA_PATH_BYTES, mediaPath, mediaPathRefusal } from '../../lib/media/mediaPath';

describe('mediaPath: the name a media file keeps, and its folder', () => {
  it.each([
    ['0001.png', '0001.png', null],
    ['cats/0001.png', 'cats/0001.png', 'cats'],
    ['pets/cats/0001.png', 'pets/cats/0001.png', 'cats'],
    ['cats\\0001.png', 'cats/0001.png', 'cats'],
    ['C:\\photos\\cats\\1.jpg', 'photos/cats/1.jpg', 'cats'],
    ['c:/photos/1.jpg', 'photos/1.jpg', 'photos'],
    ['\\\\server\\share\\dogs\\2.jpg', 'server/share/dogs/2.jpg', 'dogs'],
    ['/srv/data/cats/1.jpg', 'srv/data/cats/1.jpg', 'cats'],
    ['./cats/./1.jpg', 'cats/1.jpg', 'cats'],
    ['cats//1.jpg', 'cats/1.jpg', 'cats'],
    ['cats/../dogs/1.jpg', 'dogs/1.jpg', 'dogs'],
    ['../../etc/1.jpg', 'etc/1.jpg', 'etc'],
    ['../1.jpg', '1.jpg', null],
    [' cats /1.jpg', ' cats /1.jpg', 'cats'],
    ['  /1.jpg', '  /1.jpg', null],
    ['chats/été 1.jpg', 'chats/été 1.jpg', 'chats'],
  ])('%j → %j in folder %j', (raw, fileName, folder) => {
    expect(mediaPath(raw)).toEqual({ fileName, folder });
  });

  it('gives nothing for a name with no file in it', () => {
    for (const raw of ['', '/', '.', '..', 'a/..', 'C:\\']) expect(mediaPath(raw).fileName).toBe('');
  });

  it('gives the same name when applied to a name it made', () => {
    for (const raw of ['C:\\photos\\cats\\1.jpg', '../a/./b//c.png', '/x/y.jpg', 'cats/0001.png']) {
      const once = mediaPath(raw);
      expect(mediaPath(once.fileName)).toEqual(once);
    }
  });

  it('keeps the same base name in two folders apart', () => {
    expect(mediaPath('cats/0001.png').fileName).not.toBe(mediaPath('dogs/0001.png').fileName);
  });

  it(`refuses a path longer than ${MAX_MEDIA_PATH_BYTES} UTF-8 bytes, stating the limit`, () => {
    expect(mediaPathRefusal(`${'a'.repeat(MAX_MEDIA_PATH_BYTES - 4)}.jpg`)).toBeUndefined();
    expect(mediaPathRefusal(`${'a'.repeat(MAX_MEDIA_PATH_BYTES - 3)}.jpg`)).toBe(`File path is longer than 1024 bytes (UTF-8): ${'a'.repeat(80)}…`);
    // 505 characters, 1,205 bytes: the index's limit is in bytes.
    expect(mediaPathRefusal(`${'é'.repeat(300)}/${'猫'.repeat(200)}.jpg`)).toMatch(/^File path is longer than 1024 bytes/);
  });
});
