import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev` serves the app on :5173 and hands /api to the API (npm start in the repository root).
export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/api': process.env.API_URL ?? 'http://localhost:8080' } },
  build: { outDir: 'dist', emptyOutDir: true },
});
