import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { Dataset } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { taskKeys } from '../tasks/api';
import { datasetKeys, deleteDataset } from './api';

/** Delete: asks first (it cannot be undone), then leaves for the dataset list. Only the owner may; the API says why otherwise. */
export function DeleteDataset({ dataset }: { dataset: Dataset }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteDataset(dataset.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: datasetKeys.detail(dataset.id) });
      await Promise.all([datasetKeys.list, taskKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      await navigate('/');
    },
  });
  const refused = refusalOf(dataset, 'delete');
  return (
    <>
      <p>
        <button type="button" className="danger" onClick={() => setConfirming(true)} disabled={Boolean(refused) || remove.isPending} aria-describedby={refused ? 'delete-reason' : undefined}>
          Delete dataset
        </button>{' '}
        {refused && (
          <span className="reason" id="delete-reason">
            {refused}
          </span>
        )}
      </p>
      <ErrorMessage error={remove.error} prefix="The dataset could not be deleted" />
      {confirming && (
        <ConfirmDialog
          title={`Delete “${dataset.display_name}”?`}
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            remove.mutate();
          }}
        >
          <p>
            The dataset, its snapshots, saved views, tasks and exports are deleted for everyone it is shared with. This cannot be undone. Datasets
            cloned or enriched from it are kept.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
