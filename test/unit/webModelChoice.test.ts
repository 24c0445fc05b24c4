// The web app is an ES module package: imported dynamically from this CommonJS test (jest.config.js maps the .js).
const web = import('../../web/src/features/enrichment/modelChoice.js');
let choice: Awaited<typeof web>;
beforeAll(async () => {
  choice = await web;
});

type Model = Parameters<typeof choice.chooseModel>[3];
const model = (id: string, type: Model['type'], dependencies: Model['dependencies'] = null, status: Model['status'] = 'Active'): Model => ({
  id,
  name: id,
  type,
  status,
  vendor: 'us',
  description: '',
  dependencies,
});

const tagger = model('tagger@1', 'IMAGE_TAGGING');
const detector = model('detector@1', 'OBJECT_DETECTION');
const objectCaptioner = model('object-captioner@1', 'CAPTION_OBJECTS', ['OBJECT_DETECTION']);
const tagCaptioner = model('tag-captioner@1', 'CAPTION_IMAGES', ['IMAGE_TAGGING']);
const soon = model('encoder@2', 'MULTIMODEL_IMAGE_ENCODING', null, 'Coming Soon');
const models = [tagger, detector, objectCaptioner, tagCaptioner, soon];

describe("the web's choice of enrichment models", () => {
  it('chooses what a model depends on with it, unless it is applied or chosen already', () => {
    expect(choice.chooseModel(models, {}, {}, objectCaptioner)).toEqual({ CAPTION_OBJECTS: 'object-captioner@1', OBJECT_DETECTION: 'detector@1' });
    expect(choice.chooseModel(models, { OBJECT_DETECTION: 'detector@0' }, {}, objectCaptioner)).toEqual({ CAPTION_OBJECTS: 'object-captioner@1' });
    expect(choice.chooseModel(models, {}, { IMAGE_TAGGING: 'tagger@1' }, tagCaptioner)).toEqual({ IMAGE_TAGGING: 'tagger@1', CAPTION_IMAGES: 'tag-captioner@1' });
  });

  it('drops with a type every chosen model that needed it, unless an applied model serves it', () => {
    const both = { CAPTION_OBJECTS: 'object-captioner@1', OBJECT_DETECTION: 'detector@1', IMAGE_TAGGING: 'tagger@1' };
    expect(choice.unchooseType(models, {}, both, 'OBJECT_DETECTION')).toEqual({ IMAGE_TAGGING: 'tagger@1' });
    expect(choice.unchooseType(models, { OBJECT_DETECTION: 'detector@0' }, both, 'OBJECT_DETECTION')).toEqual({ CAPTION_OBJECTS: 'object-captioner@1', IMAGE_TAGGING: 'tagger@1' });
  });

  it('says why a model cannot be chosen', () => {
    const available = new Set<Model['type']>(['IMAGE_TAGGING', 'OBJECT_DETECTION', 'CAPTION_OBJECTS', 'CAPTION_IMAGES']);
    expect(choice.refusal(soon, {}, available)).toBe('Coming Soon: not available on this installation yet');
    expect(choice.refusal(tagger, { IMAGE_TAGGING: 'tagger@0' }, available)).toBe('IMAGE_TAGGING is already applied (tagger@0)');
    expect(choice.refusal(objectCaptioner, {}, new Set(['IMAGE_TAGGING']))).toBe('Needs OBJECT_DETECTION, which no Active model provides');
    expect(choice.refusal(objectCaptioner, { OBJECT_DETECTION: 'detector@0' }, new Set())).toBeUndefined();
    expect(choice.refusal(tagCaptioner, {}, available)).toBeUndefined();
  });
});
