'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';

/**
 * Scalar's reference for our OpenAPI document. Offline: its default web fonts (loaded from Scalar's
 * servers), telemetry and "try it" proxy are off, so the page loads nothing from other hosts.
 */
export function ApiDocs() {
  return (
    <main>
      <h1 className="sr-only">Countersign API reference</h1>
      <ApiReferenceReact
        configuration={{
          url: '/api/openapi.json',
          withDefaultFonts: false,
          telemetry: false,
          hideClientButton: true,
          hideTestRequestButton: true,
          showDeveloperTools: 'never',
          mcp: { disabled: true },
          documentDownloadType: 'json',
        }}
      />
    </main>
  );
}
