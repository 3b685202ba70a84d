'use client';

import { harden } from 'rehype-harden';
import { defaultRehypePlugins, defaultRemarkPlugins, Streamdown, type StreamdownProps } from 'streamdown';

type PluggableList = NonNullable<StreamdownProps['rehypePlugins']>;

type MdNode = { type: string; value?: string; children?: MdNode[] };

/**
 * A remark plugin that turns raw HTML in the Markdown (`<script>`, `<img onerror=…>`) into plain
 * text: model output is shown as written, never parsed or run as HTML.
 */
function htmlAsText() {
  const visit = (node: MdNode) => {
    if (node.type === 'html') node.type = 'text';
    node.children?.forEach(visit);
  };
  return (tree: MdNode) => visit(tree);
}

// Streamdown draws bold text as a styled <span>; keep the <strong> element (its meaning).
const components: StreamdownProps['components'] = {
  strong: ({ children, className }) => <strong className={className ?? 'font-semibold'}>{children}</strong>,
};

const remarkPlugins: PluggableList = [...Object.values(defaultRemarkPlugins), htmlAsText];

// No rehype-raw (Streamdown's default would parse raw HTML). Links: http(s) and mailto only — a
// `javascript:` or `data:` link renders as its text; images from model text are never loaded
// (an image URL can leak data to a third party), their alt text shows instead.
const rehypePlugins: PluggableList = [
  defaultRehypePlugins.sanitize!,
  [
    harden,
    {
      allowedLinkPrefixes: ['*'],
      allowedImagePrefixes: [],
      linkBlockPolicy: 'text-only',
      imageBlockPolicy: 'text-only',
    },
  ],
];

/**
 * Assistant text rendered as Markdown while it streams (Streamdown completes unterminated
 * emphasis, code and links as they arrive). Raw HTML shows as text; links open in a new tab.
 * @param streaming the text is still arriving
 */
export function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <div data-testid="assistant-text" className="text-sm leading-relaxed [overflow-wrap:anywhere]">
      <Streamdown
        components={components}
        remarkPlugins={remarkPlugins}
        rehypePlugins={rehypePlugins}
        linkSafety={{ enabled: false }}
        isAnimating={streaming}
      >
        {text}
      </Streamdown>
    </div>
  );
}
