import Link from 'next/link';
import { Button } from './button';

/**
 * A section's views as tabs: links, the current one marked (`aria-current="page"`) and shaded.
 *
 * @param label the nav's accessible name, e.g. "Audit views"
 * @param tabs each view's id, path and label; `data-testid` is `${testIdPrefix}${id}`
 * @param current the id of the view shown
 */
export function ViewTabs<Id extends string>({
  label,
  tabs,
  current,
  testIdPrefix,
}: {
  label: string;
  tabs: readonly { id: Id; href: string; label: string }[];
  current: Id;
  testIdPrefix: string;
}) {
  return (
    <nav aria-label={label} className="flex gap-1">
      {tabs.map((tab) => (
        <Button key={tab.id} asChild variant="ghost" size="sm" className="aria-[current=page]:bg-muted aria-[current=page]:text-foreground">
          <Link href={tab.href} aria-current={current === tab.id ? 'page' : undefined} data-testid={`${testIdPrefix}${tab.id}`}>
            {tab.label}
          </Link>
        </Button>
      ))}
    </nav>
  );
}
