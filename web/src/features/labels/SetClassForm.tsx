import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useDataset } from '../datasets/api';
import { isEmptySelection, selectionBody, IDS_PER_LIST, type Selection } from '../selection/selection';
import { ErrorMessage } from '../../components/ErrorMessage';
import { CLASS_CHANGE_KEYS, labelQueries, setClass, undoClassChange } from './api';
import { classWriteBlocked, imageCount } from './classWrites';

/** The selection bar's "Set class": one of the classes (or a new one) or none, then what changed and an Undo. */
export function SetClassForm({ datasetId, selection }: { datasetId: string; selection: Selection }) {
  const queryClient = useQueryClient();
  const [label, setLabel] = useState('');
  const dataset = useDataset(datasetId);
  const classes = useQuery(labelQueries.classes(datasetId));
  const refresh = () => Promise.all(CLASS_CHANGE_KEYS.map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
  const set = useMutation({
    mutationFn: async (value: string | null) => ({ label: value, ...(await setClass(datasetId, selectionBody(selection), value)) }),
    onSuccess: () => undo.reset(),
    onSettled: refresh,
  });
  const undo = useMutation({ mutationFn: () => undoClassChange(datasetId), onSettled: refresh });

  const blocked =
    classWriteBlocked(dataset.data, classes.data?.label_field) ??
    (isEmptySelection(selection) ? 'Select images first.' : selection.mediaIds.length > IDS_PER_LIST ? `At most ${IDS_PER_LIST.toLocaleString('en')} picked images at once.` : undefined);
  const noLabel = label.trim() === '';
  const busy = set.isPending || undo.isPending;
  const done = set.data;
  return (
    <form
      className="inline-form"
      aria-label="Set class"
      onSubmit={(event) => {
        event.preventDefault();
        set.mutate(label.trim());
      }}
    >
      <input aria-label="Class" list="selection-classes" placeholder="class, new or existing" value={label} maxLength={100} onChange={(event) => setLabel(event.target.value)} />
      <datalist id="selection-classes">{classes.data?.classes.map((entry) => <option key={entry.label} value={entry.label} />)}</datalist>
      <button type="submit" disabled={busy || blocked !== undefined || noLabel}>
        Set class
      </button>
      <button type="button" disabled={busy || blocked !== undefined} onClick={() => set.mutate(null)}>
        Remove class
      </button>
      {blocked ? <span className="muted">{blocked}</span> : noLabel && <span className="muted">Name a class to set it.</span>}
      {done && !undo.data && (
        <p role="status" data-testid="set-class-result">
          {done.label === null ? 'Class removed' : `Class “${done.label}” set`}: {imageCount(done.changed)} changed.{' '}
          <button type="button" disabled={busy} onClick={() => undo.mutate()}>
            Undo
          </button>
        </p>
      )}
      {undo.data && (
        <p role="status" data-testid="set-class-result">
          Undone: {imageCount(undo.data.undone)} put back.
        </p>
      )}
      <ErrorMessage error={set.error} prefix="The class could not be set" />
      <ErrorMessage error={undo.error} prefix="The undo failed" />
    </form>
  );
}
