import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useDataset } from '../datasets/api';
import { ErrorMessage } from '../../components/ErrorMessage';
import { labelQueries } from './api';
import { ClassesPanel } from './ClassesPanel';
import { LabelFieldsForm } from './LabelFieldsForm';
import { LabelReport } from './LabelReport';

/**
 * The dataset's labels: their classes now (with accepting the check's suggestions and undo), which custom-metadata
 * fields hold labels and splits, and the label-quality report of their last check.
 */
export function LabelsPage() {
  const { datasetId = '' } = useParams();
  const dataset = useDataset(datasetId);
  const fields = useQuery(labelQueries.fields(datasetId));
  // A report exists once fields were declared (GET …/label_quality is a 404 before).
  const checked = Boolean(fields.data?.label_field);
  const report = useQuery({ ...labelQueries.report(datasetId), enabled: checked });
  const classes = useQuery(labelQueries.classes(datasetId));
  const name = dataset.data?.display_name ?? datasetId;
  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>{name}</Link> › Labels
      </p>
      <h1>Labels of {dataset.data?.display_name ?? 'the dataset'}</h1>
      <ErrorMessage error={dataset.error ?? fields.error ?? classes.error} />
      {dataset.data && classes.data?.label_field && <ClassesPanel dataset={dataset.data} classes={classes.data} />}
      {dataset.data && fields.data && <LabelFieldsForm dataset={dataset.data} fields={fields.data} />}
      <ErrorMessage error={report.error} prefix="The label-quality report could not be read" />
      {fields.data && !checked && (
        <p className="card" data-testid="no-label-report">
          No label-quality report yet: choose the field holding each image’s label (and, to find leakage, its split) and check the labels.
        </p>
      )}
      {report.data && <LabelReport datasetId={datasetId} report={report.data} />}
    </>
  );
}
