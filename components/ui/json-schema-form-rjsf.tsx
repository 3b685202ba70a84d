'use client';

/**
 * A form generated from a JSON Schema (the `resumeSchema` a suspended tool sends), built on
 * react-jsonschema-form: it renders a labelled field per property for any schema (objects, enums,
 * numbers, booleans, arrays) and validates with Ajv against the very schema the server checks again.
 * Only the look is ours (Tailwind templates below). Pages load it through `JsonSchemaForm`
 * (json-schema-form.tsx) only when they show a form: react-jsonschema-form and Ajv are 630 KB of script.
 */

import Form from '@rjsf/core';
import type {
  BaseInputTemplateProps,
  CustomValidator,
  ErrorTransformer,
  FieldErrorProps,
  FieldTemplateProps,
  ObjectFieldTemplateProps,
  RJSFSchema,
} from '@rjsf/utils';
import { ariaDescribedByIds, errorId, getInputProps } from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import { LoaderCircle } from 'lucide-react';
import { useMemo, type ChangeEvent, type ReactNode } from 'react';
import { Button } from './button';
import { cn } from './cn';
import { fieldClass } from './textarea';

type JsonObject = Record<string, unknown>;

/**
 * Parses a JSON Schema string. Drops `$schema`: zod emits the 2020-12 dialect URI, which the default
 * Ajv (draft-07) instance cannot resolve, and the keywords a resume schema uses mean the same in both.
 *
 * @returns the schema, or null when the string is not a JSON object
 */
function parseJsonSchema(text: string): RJSFSchema | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const { $schema: _dialect, ...schema } = parsed as JsonObject;
    return schema as RJSFSchema;
  } catch {
    return null;
  }
}

function FieldTemplate({ id, label, children, errors, help, description, rawDescription, hidden, required, displayLabel, schema, classNames }: FieldTemplateProps) {
  if (hidden) return <div className="hidden">{children}</div>;
  const isCheckbox = schema.type === 'boolean';
  return (
    <div className={cn('flex flex-col gap-1.5', classNames)}>
      {displayLabel && !isCheckbox && label ? (
        <label htmlFor={id} className="text-sm font-medium">
          {label}
          {required ? (
            <span aria-hidden className="ml-0.5 text-muted-foreground">
              *
            </span>
          ) : null}
        </label>
      ) : null}
      {displayLabel && rawDescription ? <div className="text-xs text-muted-foreground">{description}</div> : null}
      {children}
      {errors}
      {help}
    </div>
  );
}

function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { id, htmlName, value, readonly, disabled, autofocus, onBlur, onFocus, onChange, onChangeOverride, options, schema, type, rawErrors, placeholder, required } = props;
  const inputProps = getInputProps(schema, type, options);
  const numeric = inputProps.type === 'number' || inputProps.type === 'integer';
  const inputValue = numeric ? (value || value === 0 ? value : '') : (value ?? '');
  const invalid = Boolean(rawErrors && rawErrors.length > 0);
  return (
    <input
      id={id}
      name={htmlName || id}
      className={cn(fieldClass, 'h-9 py-1')}
      readOnly={readonly}
      disabled={disabled}
      autoFocus={autofocus}
      placeholder={placeholder}
      required={required}
      autoComplete="off"
      value={inputValue as string | number}
      {...inputProps}
      aria-invalid={invalid || undefined}
      aria-describedby={ariaDescribedByIds(id, false)}
      onChange={
        onChangeOverride ?? (({ target }: ChangeEvent<HTMLInputElement>) => onChange(target.value === '' ? options.emptyValue : target.value))
      }
      onBlur={({ target }) => onBlur(id, target.value)}
      onFocus={({ target }) => onFocus(id, target.value)}
    />
  );
}

function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps) {
  const shown = errors.filter(Boolean);
  if (shown.length === 0) return null;
  return (
    <ul id={errorId(fieldPathId)} className="text-xs text-destructive">
      {shown.map((error, index) => (
        <li key={index}>{error}</li>
      ))}
    </ul>
  );
}

function ObjectFieldTemplate({ title, description, properties, fieldPathId }: ObjectFieldTemplateProps) {
  const isRoot = fieldPathId.path.length === 0;
  return (
    <fieldset className={cn('flex min-w-0 flex-col gap-3', !isRoot && 'rounded-md border border-border p-3')}>
      {!isRoot && title ? <legend className="px-1 text-sm font-medium">{title}</legend> : null}
      {!isRoot && description ? <div className="text-xs text-muted-foreground">{description}</div> : null}
      {properties.map((property) => property.content)}
    </fieldset>
  );
}

const templates = { FieldTemplate, BaseInputTemplate, FieldErrorTemplate, ObjectFieldTemplate };

/** Plain messages instead of Ajv's ("must NOT have fewer than 1 characters"). */
const transformErrors: ErrorTransformer = (errors) =>
  errors.map((error) => {
    const limit = (error.params as { limit?: number } | undefined)?.limit;
    if (error.name === 'required' || (error.name === 'minLength' && limit === 1)) return { ...error, message: 'This field is required.' };
    if (error.name === 'minLength') return { ...error, message: `Use at least ${limit} characters.` };
    if (error.name === 'maxLength') return { ...error, message: `Use at most ${limit} characters.` };
    if (error.name === 'format') return { ...error, message: `Enter a valid ${(error.params as { format?: string }).format ?? 'value'}.` };
    return { ...error, message: error.message ? error.message.charAt(0).toUpperCase() + error.message.slice(1) + '.' : error.message };
  });

/** Whitespace-only text does not answer a required question (the server trims, so refuse it here too). */
function blankRequiredValidator(schema: RJSFSchema): CustomValidator {
  return (formData, errors) => {
    const data = (formData ?? {}) as JsonObject;
    for (const key of schema.required ?? []) {
      const value = data[key];
      const field = (errors as unknown as Record<string, { addError?: (message: string) => void } | undefined>)[key];
      if (typeof value === 'string' && value.trim() === '' && field?.addError) field.addError('This field is required.');
    }
    return errors;
  };
}

/** What a form shows and does (see `JsonSchemaForm` in json-schema-form.tsx). */
export interface JsonSchemaFormProps {
  /** The JSON Schema as a string, as the server sends it. */
  schema: string;
  /** Unique per form on the page, so field ids (and their labels) never collide. */
  idPrefix: string;
  onSubmit: (data: unknown) => void;
  submitLabel?: string;
  submitTestId: string;
  /** Disables the form while the answer is being sent. */
  busy?: boolean;
  /** Extra buttons next to Submit. */
  actions?: ReactNode;
  /** Values to start from (keep the reference stable). */
  initialData?: unknown;
}

/** Renders the schema's fields, validates on submit and calls `onSubmit` with valid data only. */
export function RjsfJsonSchemaForm({ schema, idPrefix, onSubmit, submitLabel = 'Submit', submitTestId, busy = false, actions, initialData }: JsonSchemaFormProps) {
  const parsed = useMemo(() => parseJsonSchema(schema), [schema]);
  const customValidate = useMemo(() => (parsed ? blankRequiredValidator(parsed) : undefined), [parsed]);
  if (!parsed) {
    return <p className="text-sm text-destructive">This question’s form could not be read. Ask the agent again.</p>;
  }
  return (
    <Form
      className="cs-form flex flex-col gap-3"
      schema={parsed}
      validator={validator}
      templates={templates}
      idPrefix={idPrefix}
      formData={initialData}
      noHtml5Validate
      showErrorList={false}
      focusOnFirstError
      transformErrors={transformErrors}
      customValidate={customValidate}
      disabled={busy}
      onSubmit={({ formData }) => onSubmit(formData)}
      // Errors are shown beside their fields; without a handler rjsf logs them as console errors.
      onError={() => {}}
    >
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" size="sm" disabled={busy} data-testid={submitTestId}>
          {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : null}
          {submitLabel}
        </Button>
        {actions}
      </div>
    </Form>
  );
}
