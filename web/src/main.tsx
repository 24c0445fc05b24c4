import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api/client';
import { sessionStore } from './api/session';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { Layout } from './components/Layout';
import { DatasetsPage } from './features/datasets/DatasetsPage';
import { DatasetPage } from './features/datasets/DatasetPage';
import { DuplicatesPage } from './features/duplicates/DuplicatesPage';
import { ClusterPage } from './features/cluster/ClusterPage';
import { LabelsPage } from './features/labels/LabelsPage';
import { ExplorePage } from './features/explore/ExplorePage';
import { TasksPage } from './features/tasks/TasksPage';
import { NotFoundPage } from './components/NotFoundPage';
import './styles.css';

/** A 401 anywhere means the API wants a login (auth is on and there is no session, or it ended). */
const onError = (error: Error) => {
  if (error instanceof ApiError && error.status === 401) sessionStore.requireLogin();
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  // An API error is an answer, not a flaky network: show its detail instead of retrying three times.
  defaultOptions: { queries: { retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status < 500), refetchOnWindowFocus: false } },
});

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <DatasetsPage /> },
      { path: 'datasets/:datasetId', element: <DatasetPage /> },
      { path: 'datasets/:datasetId/explore', element: <ExplorePage /> },
      { path: 'datasets/:datasetId/duplicates', element: <DuplicatesPage /> },
      { path: 'datasets/:datasetId/labels', element: <LabelsPage /> },
      // WebGL and its scatterplot load with the page that needs them, not with the app.
      { path: 'datasets/:datasetId/map', lazy: async () => ({ Component: (await import('./features/map/MapPage')).MapPage }) },
      { path: 'datasets/:datasetId/clusters/:clusterId', element: <ClusterPage /> },
      { path: 'tasks', element: <TasksPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
