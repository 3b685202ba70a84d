import type { Metadata } from 'next';
import { ApiDocs } from './api-docs';

export const metadata: Metadata = { title: 'API reference' };

/** The API reference, rendered from GET /api/openapi.json by Scalar (bundled; nothing from a CDN). */
export default function ApiReferencePage() {
  return <ApiDocs />;
}
