import { useSignal } from '@preact/signals';
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { describeError } from './api.ts';

/** A page: its title as the one `<h1>` (focused on navigation, for screen readers), actions beside it. */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · svc console`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions === undefined ? null : <div class="page-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

/** An API error as the user sees it: the message, its code, and the request id to quote to support. */
export function ErrorNotice(props: { error: unknown }) {
  const { message, code, requestId } = describeError(props.error);
  return (
    <div class="notice error" role="alert">
      <strong>{message}</strong>
      {code === undefined ? null : <span class="code"> ({code})</span>}
      {requestId === undefined ? null : (
        <div class="request-id">
          Request id: <code>{requestId}</code>
        </div>
      )}
    </div>
  );
}

export function Loading(props: { what?: string }) {
  return (
    <p class="loading" role="status">
      Loading{props.what === undefined ? '' : ` ${props.what}`}…
    </p>
  );
}

/** What an empty list says: what is missing and what to do next. */
export function EmptyState(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty" role="status">
      <p>
        <strong>{props.title}</strong>
      </p>
      {props.children}
    </div>
  );
}

/** A button for a destructive action: it asks before it acts, and shows the error if the call fails. */
export function ConfirmButton(props: {
  label: string;
  confirm: string;
  onConfirm: () => Promise<unknown>;
  class?: string;
}) {
  const busy = useSignal(false);
  const error = useSignal<unknown>(undefined);
  return (
    <span class="confirm-button">
      <button
        type="button"
        class={props.class ?? 'danger'}
        disabled={busy.value}
        onClick={async () => {
          if (!window.confirm(props.confirm)) return;
          busy.value = true;
          error.value = undefined;
          try {
            await props.onConfirm();
          } catch (caught) {
            error.value = caught;
          } finally {
            busy.value = false;
          }
        }}
      >
        {props.label}
      </button>
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </span>
  );
}

/** A labelled form field (the label is tied to the control, a hint and an error are announced with it). */
export function Field(props: {
  label: string;
  id: string;
  hint?: string;
  error?: string | undefined;
  children: JSX.Element;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint === undefined ? null : (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.error === undefined ? null : (
        <small id={`${props.id}-error`} class="field-error" role="alert">
          {props.error}
        </small>
      )}
    </div>
  );
}

/** A data table with a caption (visually hidden when `hideCaption`), for lists. */
export function Table(props: {
  caption: string;
  hideCaption?: boolean;
  head: ComponentChildren[];
  children: ComponentChildren;
}) {
  return (
    <table>
      <caption class={props.hideCaption === true ? 'visually-hidden' : undefined}>{props.caption}</caption>
      <thead>
        <tr>
          {props.head.map((cell, i) => (
            <th scope="col" key={i}>
              {cell}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}

/** A time as the user's locale shows it, with the exact ISO value on hover. */
export function Time(props: { value: string | undefined | null }) {
  if (props.value === undefined || props.value === null) return <span>—</span>;
  const date = new Date(props.value);
  return (
    <time dateTime={props.value} title={props.value}>
      {date.toLocaleString()}
    </time>
  );
}
