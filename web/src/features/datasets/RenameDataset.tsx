import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Dataset } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { ErrorMessage } from '../../components/ErrorMessage';
import { taskKeys } from '../tasks/api';
import { datasetKeys, renameDataset } from './api';

/** Rename: a button that turns into a name field. */
export function RenameDataset({ dataset }: { dataset: Dataset }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState<string | undefined>();
  const rename = useMutation({
    mutationFn: (newName: string) => renameDataset(dataset.id, newName),
    onSuccess: () => setName(undefined),
    onSettled: () => Promise.all([datasetKeys.details, datasetKeys.list, taskKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
  const refused = refusalOf(dataset, 'curate');
  if (name === undefined) {
    return (
      <p>
        <button type="button" onClick={() => setName(dataset.display_name)} disabled={Boolean(refused)} aria-describedby={refused ? 'rename-refusal' : undefined}>
          Rename
        </button>{' '}
        {refused && (
          <span className="reason" id="rename-refusal">
            {refused}
          </span>
        )}
      </p>
    );
  }
  const empty = name.trim() === '';
  return (
    <form
      className="inline-form"
      aria-label="Rename the dataset"
      onSubmit={(event) => {
        event.preventDefault();
        rename.mutate(name.trim());
      }}
    >
      <input aria-label="New name" value={name} onChange={(event) => setName(event.target.value)} maxLength={255} autoFocus />
      <button type="submit" disabled={empty || rename.isPending} aria-describedby="rename-reason">
        Save name
      </button>
      <button type="button" onClick={() => setName(undefined)}>
        Cancel
      </button>
      {empty && (
        <span className="reason" id="rename-reason">
          A name needs at least one character.
        </span>
      )}
      <ErrorMessage error={rename.error} prefix="The dataset could not be renamed" />
    </form>
  );
}
