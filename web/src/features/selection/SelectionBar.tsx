import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { exploreKeys } from '../explore/api';
import { SetClassForm } from '../labels/SetClassForm';
import { taskKeys } from '../tasks/api';
import { changeTagOf, createTag, exportSelection as startExport, selectionQueries, tagKeys, tagQueries } from './api';
import { LabelForm } from './LabelForm';
import { SelectForLabellingForm } from './SelectForLabellingForm';
import { describeCount, describeSelection, isEmptySelection, selectionBodies, type Selection } from './selection';

/**
 * Bulk actions on the selection: tag or untag it (with a tag of the dataset or a new one), set its class,
 * label it by propagation, choose N of what the filters match for labelling, export it, clear it. Each action says what it did; nothing is done to an empty selection.
 */
export function SelectionBar({ datasetId, selection, onClear }: { datasetId: string; selection: Selection; onClear(): void }) {
  const queryClient = useQueryClient();
  const [tagName, setTagName] = useState('');
  const tags = useQuery(tagQueries.list(datasetId));
  const refresh = () => Promise.all([tagKeys.all, exploreKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })));

  const changeTag = useMutation({
    mutationFn: async (action: 'tag' | 'untag') => {
      const name = tagName.trim();
      let tag = tags.data?.tags.find((candidate) => candidate.name === name);
      if (!tag && action === 'untag') throw new Error(`No tag named “${name}” in this dataset`);
      tag ??= await createTag(datasetId, name);
      let changed = 0;
      for (const body of selectionBodies(selection)) changed += await changeTagOf(datasetId, tag.id, action, body);
      return { action, name, changed };
    },
    onSettled: refresh,
  });
  const exportSelection = useMutation({
    mutationFn: () => startExport(datasetId, selection),
    onSettled: () => queryClient.invalidateQueries({ queryKey: taskKeys.all }),
  });

  const empty = isEmptySelection(selection);
  // Counted on the server before any action (a filter also matches video frames): what a Tag will change. A selection
  // of more ids than one request takes is the picked ids alone, counted already.
  const bodies = empty ? [] : selectionBodies(selection);
  const countable = bodies.length === 1;
  const counted = useQuery({ ...selectionQueries.count(datasetId, bodies[0]), enabled: countable });
  const counting = countable && !counted.data;
  // Items, not images, once the count says the selection holds video frames or videos.
  const noun = counted.data && counted.data.total !== counted.data.images ? 'item' : 'image';
  const noTag = tagName.trim() === '';
  const busy = changeTag.isPending || exportSelection.isPending || counting;
  return (
    <section className="card selection-bar" aria-label="Selection">
      <strong data-testid="selection-size">{describeSelection(selection)}</strong>
      {countable && (
        <span className="muted" data-testid="selection-count">
          {counted.data ? describeCount(counted.data) : counted.error ? 'not counted' : 'counting…'}
        </span>
      )}
      <ErrorMessage error={counted.error} prefix="The selection could not be counted" />
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          changeTag.mutate('tag');
        }}
      >
        <input aria-label="Tag name" list="selection-tags" placeholder="tag name, new or existing" value={tagName} maxLength={100} onChange={(event) => setTagName(event.target.value)} />
        <datalist id="selection-tags">{tags.data?.tags.map((tag) => <option key={tag.id} value={tag.name} />)}</datalist>
        <button type="submit" disabled={busy || noTag || empty}>
          Tag
        </button>
        <button type="button" disabled={busy || noTag || empty} onClick={() => changeTag.mutate('untag')}>
          Untag
        </button>
        {noTag && <span className="muted">Name a tag to tag or untag.</span>}
      </form>
      <SetClassForm datasetId={datasetId} selection={selection} />
      <LabelForm datasetId={datasetId} selection={selection} disabled={empty} />
      <SelectForLabellingForm datasetId={datasetId} selection={selection} />
      <button type="button" disabled={busy || empty || Boolean(selection.matching)} onClick={() => exportSelection.mutate()}>
        Export selection (JSON)
      </button>{' '}
      {selection.matching && <span className="muted">An export takes picked images and clusters: tag what the filters match, then export by tag. </span>}
      <button type="button" onClick={onClear}>
        Clear selection
      </button>
      {changeTag.data && (
        <p role="status">
          {changeTag.data.action === 'tag' ? 'Tagged' : 'Untagged'} {changeTag.data.changed} {noun}
          {changeTag.data.changed === 1 ? '' : 's'} “{changeTag.data.name}”.
        </p>
      )}
      {exportSelection.data && (
        <p role="status">
          Export started: follow it under Exports on the dataset's page (task <code>{exportSelection.data.id}</code>).
        </p>
      )}
      <ErrorMessage error={changeTag.error} prefix="The tag change failed" />
      <ErrorMessage error={exportSelection.error} prefix="The export could not start" />
    </section>
  );
}
