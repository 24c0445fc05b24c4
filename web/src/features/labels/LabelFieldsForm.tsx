import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Dataset } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { ErrorMessage } from '../../components/ErrorMessage';
import { datasetKeys } from '../datasets/api';
import { TaskNotice } from '../tasks/TaskNotice';
import { declareLabelFields, labelKeys, type LabelFields } from './api';

/** One option per field, saying how many media carry it and how many values it takes. */
function FieldOptions({ candidates }: { candidates: LabelFields['candidates'] }) {
  return candidates.map((candidate) => (
    <option key={candidate.name} value={candidate.name}>
      {candidate.name} ({candidate.media} media, {candidate.values} values)
    </option>
  ));
}

/** Declares the label and split fields (from the custom-metadata fields the media carry) and follows the LABEL_QUALITY task it starts. */
export function LabelFieldsForm({ dataset, fields }: { dataset: Dataset; fields: LabelFields }) {
  const queryClient = useQueryClient();
  const names = fields.candidates.map((candidate) => candidate.name);
  const [label, setLabel] = useState(fields.label_field ?? names[0] ?? '');
  const [split, setSplit] = useState(fields.split_field ?? '');
  const declare = useMutation({
    mutationFn: async () => ({ since: Date.now(), taskId: await declareLabelFields(dataset.id, label, split || null) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: datasetKeys.detail(dataset.id) }),
  });
  const reason =
    names.length === 0
      ? 'No media carries custom metadata yet: import a file with a label column first (Dataset page, or POST …/custom_metadata).'
      : (refusalOf(dataset, 'check_labels') ?? (label === split ? 'The split field must differ from the label field.' : undefined));

  return (
    <section className="card" aria-labelledby="label-fields-title">
      <h2 id="label-fields-title">Label fields</h2>
      <form
        className="inline-form"
        aria-label="Label fields"
        onSubmit={(event) => {
          event.preventDefault();
          declare.mutate();
        }}
      >
        <label>
          Label field{' '}
          <select value={label} onChange={(event) => setLabel(event.target.value)} disabled={names.length === 0}>
            <FieldOptions candidates={fields.candidates} />
          </select>
        </label>
        <label>
          Split field{' '}
          <select value={split} onChange={(event) => setSplit(event.target.value)} disabled={names.length === 0}>
            <option value="">none</option>
            <FieldOptions candidates={fields.candidates} />
          </select>
        </label>
        <button type="submit" disabled={reason !== undefined || declare.isPending}>
          Check labels
        </button>
        {reason && <span className="muted">{reason}</span>}
      </form>
      {declare.data && (
        <TaskNotice
          key={declare.data.taskId}
          followed={{ taskType: 'LABEL_QUALITY', datasetId: dataset.id, since: declare.data.since }}
          running="Checking the labels: the dataset is READ ONLY until the LABEL_QUALITY task ends."
          completed={(task) => `${task.status_message ?? 'Checked.'}`}
          refresh={[labelKeys.report(dataset.id)[0], labelKeys.fields(dataset.id)[0], labelKeys.classes(dataset.id)[0], labelKeys.flagged(dataset.id)[0], 'dataset']}
        />
      )}
      <ErrorMessage error={declare.error} prefix="The check could not start" />
    </section>
  );
}
