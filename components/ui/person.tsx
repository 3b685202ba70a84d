import { revealBidi, type People } from '@/lib/present/describe';

/**
 * A person's display name with their email beside it. Display names are free text (anyone may call
 * themself "Ada"); the email is unique, so reviewers and admins can tell people apart. Both are
 * isolated (`<bdi>`) with direction controls shown, so a name cannot reorder the text around it.
 */
export function PersonLabel({ id, people }: { id: string; people: People }) {
  const person = people[id];
  return (
    <span data-testid="person" data-user-id={id}>
      <bdi>{revealBidi(person?.name ?? id)}</bdi>
      {person?.email ? (
        <>
          {' '}
          <bdi data-testid="person-email" className="text-xs text-muted-foreground">
            &lt;{revealBidi(person.email)}&gt;
          </bdi>
        </>
      ) : null}
    </span>
  );
}
