import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Task, TaskStatus } from '../../api/client';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { ProgressBar } from '../../components/ProgressBar';
import { RecordTable, StatusBadge, type Column } from '../../components/RecordTable';
import { useUrlState } from '../../urlState';
import { datasetKeys, datasetQueries } from '../datasets/api';
import { abortTask, retryTask, taskKeys, taskQueries, useWorkflowUrl } from './api';
import { taskQueryOf, type TasksQuery } from './taskQuery';

type SortBy = NonNullable<TasksQuery['sort_by']>;

const STATUSES: TaskStatus[] = ['INITIALIZING', 'RUNNING', 'COMPLETED', 'FAILED', 'ABORTED'];
const SORTS: { value: SortBy; label: string }[] = [
  { value: 'start_time', label: 'Start time' },
  { value: 'status', label: 'Status' },
  { value: 'task_type', label: 'Type' },
  { value: 'dataset_name', label: 'Dataset name' },
  { value: 'dataset_id', label: 'Dataset id' },
  { value: 'created_by', label: 'Created by' },
];
const PAGE_SIZES = [10, 20, 50];

export function TasksPage() {
  // The page's filters live in the URL, so a filtered list can be linked and survives a reload.
  const [params, change] = useUrlState();
  const query = taskQueryOf(params);
  const workflowUrl = useWorkflowUrl();
  const queryClient = useQueryClient();
  const filters = useQuery(taskQueries.filters(query.start_time_from, query.start_time_to));
  const tasks = useQuery({
    ...taskQueries.list(query),
    placeholderData: keepPreviousData,
    refetchInterval: (state) => (state.state.data?.tasks.some((task) => task.status === 'RUNNING' || task.status === 'INITIALIZING') ? 2000 : 10_000),
  });
  const action = useMutation({
    mutationFn: ({ task, kind }: { task: Task; kind: 'abort' | 'retry' }) => (kind === 'abort' ? abortTask(task.task_id) : retryTask(task.task_id)),
    onSettled: () => Promise.all([queryClient.invalidateQueries({ queryKey: taskKeys.all }), queryClient.invalidateQueries({ queryKey: datasetKeys.list })]),
  });

  const [confirmingAbort, setConfirmingAbort] = useState<Task | undefined>();
  const total = tasks.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / (query.page_size ?? 20)));
  // The filter lists ids and names apart; the datasets list names the ids it knows.
  const datasets = useQuery(datasetQueries.list());
  const nameOf = new Map((datasets.data ?? []).map((dataset) => [dataset.id, dataset.display_name]));
  const datasetIds = filters.data?.dataset_ids ?? [];
  const datasetNames = filters.data?.dataset_names ?? [];
  const actionsOf = (task: Task) => {
    const abortReason = task.abort_refusal ?? undefined;
    const retryReason = task.retry_refusal ?? undefined;
    const pending = action.isPending && action.variables?.task.task_id === task.task_id;
    return (
      <>
        <button type="button" disabled={Boolean(abortReason) || pending} title={abortReason ?? 'Abort this task'} aria-describedby={abortReason ? `abort-reason-${task.task_id}` : undefined} onClick={() => setConfirmingAbort(task)}>
          Abort
        </button>
        <button type="button" disabled={Boolean(retryReason) || pending} title={retryReason ?? 'Run this task again with its stored input'} aria-describedby={retryReason ? `retry-reason-${task.task_id}` : undefined} onClick={() => action.mutate({ task, kind: 'retry' })}>
          Retry
        </button>
        {workflowUrl(task.task_id) ? (
          <a href={workflowUrl(task.task_id)!} target="_blank" rel="noreferrer">
            Workflow
          </a>
        ) : (
          <span className="muted" title="The API knows no Temporal UI address: set TEMPORAL_UI_URL">
            no Temporal UI
          </span>
        )}
        {abortReason && (
          <span className="reason" id={`abort-reason-${task.task_id}`}>
            Abort: {abortReason}
          </span>
        )}
        {retryReason && (
          <span className="reason" id={`retry-reason-${task.task_id}`}>
            Retry: {retryReason}
          </span>
        )}
      </>
    );
  };
  const columns: Column<Task>[] = [
    { header: 'Type', cell: (task) => task.task_type },
    {
      header: 'Dataset',
      cell: (task) => (
        <>
          <Link to={`/datasets/${task.dataset_id}`}>{task.dataset_name}</Link>
          <div className="muted">{task.dataset_status}</div>
        </>
      ),
    },
    {
      header: 'Status',
      cell: (task) => {
        // The API answers an abort once the workflow has stopped (seconds): the row says so at once.
        const aborting = action.isPending && action.variables?.task.task_id === task.task_id && action.variables.kind === 'abort';
        return (
          <StatusBadge status={aborting ? 'ABORTING' : task.status} testId="task-status" live>
            {aborting ? 'Aborting…' : task.status}
          </StatusBadge>
        );
      },
    },
    { header: 'Progress', cell: (task) => <ProgressBar value={task.progress_percentage} label={`Progress of task ${task.task_id}`} /> },
    {
      header: 'Message',
      cell: (task) => (
        <>
          {task.status_message}
          {task.error_message && <div className="error">{task.error_message}</div>}
        </>
      ),
    },
    { header: 'Created by', cell: (task) => task.created_by },
    { header: 'Started', cell: (task) => new Date(task.start_time).toLocaleString() },
    { header: 'Ended', cell: (task) => (task.end_time ? new Date(task.end_time).toLocaleString() : '—') },
    { header: 'Actions', className: 'actions', cell: actionsOf },
  ];

  return (
    <>
      <h1>Tasks</h1>
      <form className="filters" aria-label="Task filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Dataset{' '}
          <select aria-label="Dataset" value={query.dataset_id ?? ''} onChange={(event) => change({ dataset_id: event.target.value })}>
            <option value="">any</option>
            {datasetIds.map((id) => (
              <option key={id} value={id}>
                {nameOf.has(id) ? `${nameOf.get(id)} (${id.slice(0, 8)})` : id}
              </option>
            ))}
            {query.dataset_id && !datasetIds.includes(query.dataset_id) && <option value={query.dataset_id}>{query.dataset_id}</option>}
          </select>
        </label>
        <label>
          Dataset name{' '}
          <select aria-label="Dataset name" value={query.dataset_name ?? ''} onChange={(event) => change({ dataset_name: event.target.value })}>
            <option value="">any</option>
            {datasetNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type{' '}
          <select aria-label="Task type" value={query.task_type ?? ''} onChange={(event) => change({ task_type: event.target.value })}>
            <option value="">any</option>
            {(filters.data?.task_types ?? []).map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select aria-label="Task status" value={query.task_status ?? ''} onChange={(event) => change({ task_status: event.target.value })}>
            <option value="">any</option>
            {STATUSES.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Created by{' '}
          <select aria-label="Created by" value={query.created_by ?? ''} onChange={(event) => change({ created_by: event.target.value })}>
            <option value="">anyone</option>
            {(filters.data?.created_by ?? []).map((email) => (
              <option key={email}>{email}</option>
            ))}
          </select>
        </label>
        <label>
          Started from <input type="datetime-local" aria-label="Started from" value={params.get('from') ?? ''} onChange={(event) => change({ from: event.target.value })} />
        </label>
        <label>
          to <input type="datetime-local" aria-label="Started to" value={params.get('to') ?? ''} onChange={(event) => change({ to: event.target.value })} />
        </label>
        <label>
          Sort by{' '}
          <select aria-label="Sort by" value={query.sort_by} onChange={(event) => change({ sort_by: event.target.value })}>
            {SORTS.map((sort) => (
              <option key={sort.value} value={sort.value}>
                {sort.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order{' '}
          <select aria-label="Sort order" value={query.sort_order} onChange={(event) => change({ sort_order: event.target.value })}>
            <option value="desc">descending</option>
            <option value="asc">ascending</option>
          </select>
        </label>
        <button type="button" onClick={() => change({ dataset_id: '', dataset_name: '', task_type: '', task_status: '', created_by: '', from: '', to: '' })}>
          Clear filters
        </button>
      </form>
      <ErrorMessage error={filters.error} prefix="The filters could not be loaded" />
      <ErrorMessage error={tasks.error} prefix="The tasks could not be listed" />
      <ErrorMessage error={action.error} prefix={action.variables ? `${action.variables.kind === 'abort' ? 'Abort' : 'Retry'} refused` : undefined} />
      {tasks.isPending && <p>Loading…</p>}
      {tasks.data && (
        <RecordTable
          label="Tasks"
          columns={columns}
          rows={tasks.data.tasks}
          rowKey={(task) => task.task_id}
          rowData={(task) => ({ 'data-task-id': task.task_id, 'data-task-type': task.task_type })}
          empty="No task matches these filters."
        />
      )}
      {confirmingAbort && (
        <ConfirmDialog
          title={`Abort this ${confirmingAbort.task_type} task?`}
          confirmLabel="Abort the task"
          onCancel={() => setConfirmingAbort(undefined)}
          onConfirm={() => {
            action.mutate({ task: confirmingAbort, kind: 'abort' });
            setConfirmingAbort(undefined);
          }}
        >
          <p>
            Processing of “{confirmingAbort.dataset_name}” stops and the task ends ABORTED. The files uploaded so far stay: Retry processes them again with the same settings.
          </p>
        </ConfirmDialog>
      )}
      <Pager
        label="Task pages"
        page={(query.page ?? 1) - 1}
        hasNext={(query.page ?? 1) < pages}
        summary={`Page ${query.page} of ${pages} (${total} task${total === 1 ? '' : 's'})`}
        onPage={(next) => change({ page: String(next + 1) })}
      >
        <label>
          Per page{' '}
          <select aria-label="Tasks per page" value={query.page_size} onChange={(event) => change({ page_size: event.target.value })}>
            {PAGE_SIZES.map((size) => (
              <option key={size}>{size}</option>
            ))}
          </select>
        </label>
      </Pager>
    </>
  );
}
