import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { Layout } from './components/Layout';
import { DatasetsPage } from './pages/DatasetsPage';
import { DatasetPage } from './pages/DatasetPage';
import { ExplorePage } from './pages/ExplorePage';
import { TasksPage } from './pages/TasksPage';
import { NotFoundPage } from './pages/NotFoundPage';
import './styles.css';

const queryClient = new QueryClient({
  // An API error is an answer, not a flaky network: show its detail instead of retrying three times.
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <DatasetsPage /> },
      { path: 'datasets/:datasetId', element: <DatasetPage /> },
      { path: 'datasets/:datasetId/explore', element: <ExplorePage /> },
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
