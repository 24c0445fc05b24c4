// The web app is an ES module package: imported dynamically from this CommonJS test (jest.config.js maps the .js).
const web = import('../../web/src/features/selection/selection.js');
let selections: Awaited<typeof web>;
beforeAll(async () => {
  selections = await web;
});

describe("the web app's selection", () => {
  it('says what is selected and sends the API its MediaSelection', () => {
    expect(selections.isEmptySelection(selections.EMPTY_SELECTION)).toBe(true);
    expect(selections.describeSelection(selections.EMPTY_SELECTION)).toBe('Nothing selected');
    const selection = { mediaIds: ['a'], clusters: [{ id: 'c1', size: 3 }, { id: 'c2', size: 1 }], matching: { vql: '[]', description: 'every image' } };
    expect(selections.describeSelection(selection)).toBe('1 image + 2 whole clusters (4 images) + every image selected');
    expect(selections.selectionBody(selection)).toMatchObject({ media_ids: ['a'], cluster_ids: ['c1', 'c2'] });
  });

  it('counts images and video frames apart', () => {
    expect(selections.describeCount({ total: 976, images: 976, video_frames: 0, videos: 0 })).toBe('976 images');
    expect(selections.describeCount({ total: 1095, images: 976, video_frames: 119, videos: 0 })).toBe('1,095 items: 976 images, 119 video frames');
  });

  it('splits a long pick into lists the API takes', () => {
    const ids = Array.from({ length: selections.IDS_PER_LIST * 2 + 1 }, (_, i) => `m${i}`);
    const lists = selections.mediaIdLists({ mediaIds: ids, clusters: [] });
    expect(lists.map((list) => list.length)).toEqual([selections.IDS_PER_LIST, selections.IDS_PER_LIST, 1]);
    expect(lists.flat()).toEqual(ids);
  });

  /** The grid's images in reading order. */
  const grid = ['a', 'b', 'c', 'd', 'e'];

  it('picks and unpicks one image per click', () => {
    let selection = selections.toggleMedia(selections.EMPTY_SELECTION, grid, 'b', undefined, false);
    expect(selection.mediaIds).toEqual(['b']);
    selection = selections.toggleMedia(selection, grid, 'd', 'b', false);
    expect(selection.mediaIds).toEqual(['b', 'd']);
    selection = selections.toggleMedia(selection, grid, 'b', 'd', false);
    expect(selection.mediaIds).toEqual(['d']);
  });

  it('picks every image between the last click and a Shift-click, either way, keeping what was picked', () => {
    const first = selections.toggleMedia(selections.EMPTY_SELECTION, grid, 'a', undefined, false);
    expect(selections.toggleMedia(first, grid, 'd', 'b', true).mediaIds.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(selections.toggleMedia(first, grid, 'b', 'e', true).mediaIds.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    // A Shift-click never unpicks: the range is added to the selection.
    expect(selections.toggleMedia({ ...first, mediaIds: ['a', 'b'] }, grid, 'b', 'a', true).mediaIds.sort()).toEqual(['a', 'b']);
  });

  it('toggles one image on a Shift-click with no earlier click on this page', () => {
    expect(selections.toggleMedia(selections.EMPTY_SELECTION, grid, 'c', undefined, true).mediaIds).toEqual(['c']);
    expect(selections.toggleMedia(selections.EMPTY_SELECTION, grid, 'c', 'gone-from-the-page', true).mediaIds).toEqual(['c']);
  });

  it('picks and unpicks whole clusters, keeping the picked images and the filter', () => {
    const start = { mediaIds: ['a'], clusters: [], matching: { vql: '[]', description: 'every image' } };
    const withCluster = selections.toggleCluster(start, { id: 'c1', size: 12 });
    expect(withCluster).toEqual({ ...start, clusters: [{ id: 'c1', size: 12 }] });
    expect(selections.hasCluster(withCluster, 'c1')).toBe(true);
    const two = selections.toggleCluster(withCluster, { id: 'c2', size: 3 });
    expect(selections.describeSelection(two)).toBe('1 image + 2 whole clusters (15 images) + every image selected');
    const back = selections.toggleCluster(two, { id: 'c1', size: 12 });
    expect(back.clusters).toEqual([{ id: 'c2', size: 3 }]);
    expect(selections.hasCluster(back, 'c1')).toBe(false);
  });

  it('sends a big pick as a first request with the clusters and the filter, then the rest of the ids', () => {
    const ids = Array.from({ length: selections.IDS_PER_LIST + 2 }, (_, i) => `m${i}`);
    const bodies = selections.selectionBodies({ mediaIds: ids, clusters: [{ id: 'c1', size: 4 }], matching: { vql: '[]', description: 'all' } });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatchObject({ cluster_ids: ['c1'], vql: '[]' });
    expect(bodies[0].media_ids).toHaveLength(selections.IDS_PER_LIST);
    expect(bodies[1]).toEqual({ media_ids: ['m' + selections.IDS_PER_LIST, 'm' + (selections.IDS_PER_LIST + 1)] });
    expect(selections.selectionBodies(selections.EMPTY_SELECTION)).toEqual([{}]);
  });
});
