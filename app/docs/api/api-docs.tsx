'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';

/**
 * Text colours of Scalar's theme with at least 4.5:1 contrast on each of its backgrounds (WCAG 1.4.3;
 * axe `color-contrast`): its own greys and method colours reach 1.6–4.4:1 (e.g. the orange of POST
 * 3.2:1 on white, the third grey 3.3:1; in dark mode the third grey 4.0:1 and the red 3.3:1). The
 * selectors are doubled to outrank the theme's own, including its display-p3 variants.
 */
const CONTRAST_CSS = `
.light-mode.light-mode {
  --scalar-color-2: #5f5f5f;
  --scalar-color-3: #666666;
  --scalar-color-accent: #005bb5;
  --scalar-color-green: #05734d;
  --scalar-color-orange: #a84300;
  --scalar-color-yellow: #7a6000;
  --scalar-color-red: #c0150f;
  --scalar-color-blue: #005fa3;
  --scalar-color-query: #006a6e;
}
.dark-mode.dark-mode {
  --scalar-color-3: #9a9a9a;
  --scalar-color-red: #ff5a5a;
}
`;

/**
 * Scalar's reference for our OpenAPI document. Offline: its default web fonts (loaded from Scalar's
 * servers), telemetry and "try it" proxy are off, so the page loads nothing from other hosts. Its
 * colours are darkened where they fall below 4.5:1 (CONTRAST_CSS).
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
          customCss: CONTRAST_CSS,
        }}
      />
    </main>
  );
}
