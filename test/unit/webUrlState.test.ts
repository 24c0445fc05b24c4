// The web app is an ES module package: imported dynamically from this CommonJS test (jest.config.js maps the .js).
const web = Promise.all([
  import('../../web/src/urlChanges.js'),
  import('../../web/src/features/tasks/taskQuery.js'),
  import('../../web/src/features/views/viewLinks.js'),
]);
let urlState: Awaited<typeof web>[0];
let tasks: Awaited<typeof web>[1];
let views: Awaited<typeof web>[2];
beforeAll(async () => {
  [urlState, tasks, views] = await web;
});

describe("the web app's state in the URL", () => {
  it('sets and removes keys, leaving the others, and starts again on the first page unless the change names one', () => {
    const current = new URLSearchParams({ threshold: '2', caption: 'cat', page: '3' });
    expect(urlState.applyUrlChanges(current, { caption: 'dog', vql: '[]' }).toString()).toBe('threshold=2&caption=dog&vql=%5B%5D');
    expect(urlState.applyUrlChanges(current, { caption: undefined, threshold: '' }).toString()).toBe('');
    expect(urlState.applyUrlChanges(current, { page: '4' }).toString()).toBe('threshold=2&caption=cat&page=4');
    expect(current.toString()).toBe('threshold=2&caption=cat&page=3');
  });

  it("reads the Tasks page's URL into the API's query, with its defaults", () => {
    expect(tasks.taskQueryOf(new URLSearchParams())).toEqual({
      dataset_id: undefined,
      dataset_name: undefined,
      task_type: undefined,
      task_status: undefined,
      created_by: undefined,
      start_time_from: undefined,
      start_time_to: undefined,
      sort_by: 'start_time',
      sort_order: 'desc',
      page: 1,
      page_size: 20,
    });
    const params = new URLSearchParams({
      dataset_id: 'd1',
      task_type: 'EXPORT',
      task_status: 'FAILED',
      from: '2026-12-01T09:30',
      to: 'not a date',
      sort_by: 'status',
      sort_order: 'asc',
      page: '3',
      page_size: '50',
    });
    expect(tasks.taskQueryOf(params)).toMatchObject({
      dataset_id: 'd1',
      task_type: 'EXPORT',
      task_status: 'FAILED',
      // A datetime-local value is in the browser's zone; the API takes the instant.
      start_time_from: new Date('2026-12-01T09:30').toISOString(),
      start_time_to: undefined,
      sort_by: 'status',
      sort_order: 'asc',
      page: 3,
      page_size: 50,
    });
    expect(tasks.taskQueryOf(new URLSearchParams({ page: '-2', sort_order: 'sideways' }))).toMatchObject({ page: 1, sort_order: 'desc' });
  });

  it("writes a saved view's filters as the Explore URL that shows them", () => {
    const vql = [{ text: { op: 'fts', value: 'cats' } }];
    expect(views.viewExploreUrl('d1', { entity_type: 'IMAGES', threshold: '0', caption: null, vql: [] })).toBe('/datasets/d1/explore');
    const url = new URL(views.viewExploreUrl('d1', { entity_type: 'OBJECTS', threshold: '0', caption: 'a dog', vql }, 'b7'), 'http://web');
    expect(url.pathname).toBe('/datasets/d1/explore');
    expect(Object.fromEntries(url.searchParams)).toEqual({ entity_type: 'OBJECTS', caption: 'a dog', vql: JSON.stringify(vql), batch: 'b7' });
  });

  it("links a view's notification to the view and the batch it announced", () => {
    expect(views.viewNotificationUrl('d1', 'v1', 'b7')).toBe('/datasets/d1/explore?view=v1&batch=b7');
    expect(views.viewNotificationUrl('d1', 'v1', undefined)).toBe('/datasets/d1/explore?view=v1');
  });
});
