import { MODEL_IDS, type ModelAvailability } from '../../lib/enrichment/catalog';
import { ENRICHMENT_PLUGINS, enrichmentModels } from '../../services/enrichmentModels';

const nothing: ModelAvailability = { imageClassifier: false, objectDetector: false, clip: false, visionCaptioner: false };

describe('enrichment model plugins', () => {
  it('holds one plugin per model id, filed under its own id', () => {
    expect(Object.keys(ENRICHMENT_PLUGINS).sort()).toEqual(Object.values(MODEL_IDS).sort());
    for (const [id, plugin] of Object.entries(ENRICHMENT_PLUGINS)) expect(plugin.descriptor.id).toBe(id);
  });

  it('lists a model Active exactly when what it needs is installed', () => {
    const statuses = (installed: Partial<ModelAvailability>) =>
      Object.fromEntries(enrichmentModels({ ...nothing, ...installed }).map((model) => [model.id, model.status]));
    expect(Object.values(statuses({})).every((status) => status === 'Coming Soon')).toBe(true);
    expect(statuses({ imageClassifier: true })).toMatchObject({
      [MODEL_IDS.tagger]: 'Active',
      [MODEL_IDS.imageCaptioner]: 'Active',
      [MODEL_IDS.conceptEncoder]: 'Active',
      [MODEL_IDS.objectCaptioner]: 'Coming Soon',
      [MODEL_IDS.detector]: 'Coming Soon',
    });
    expect(statuses({ imageClassifier: true, objectDetector: true })[MODEL_IDS.objectCaptioner]).toBe('Active');
    expect(statuses({ clip: true })[MODEL_IDS.clip]).toBe('Active');
    expect(statuses({ visionCaptioner: true })[MODEL_IDS.visionCaptioner]).toBe('Active');
  });

  it('makes a run per worker without loading a model (loaders are called on first use only)', () => {
    const unused = () => {
      throw new Error('a model was loaded when its run was made');
    };
    const context = { detector: unused, clip: unused } as never;
    for (const plugin of Object.values(ENRICHMENT_PLUGINS)) expect(typeof plugin.run(context).infer).toBe('function');
  });
});
