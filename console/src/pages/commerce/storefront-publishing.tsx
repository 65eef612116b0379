import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { Link, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Field, Loading } from '../../lib/ui.tsx';
import { fieldErrors, lines, optional } from './form-errors.ts';
import type { Storefront } from './types.ts';

/** What the publishing form changes: which rooms are listed, who may embed, the defaults. */
export interface Publishing {
  listing: { roomIds: string[] | null };
  allowedOrigins: string[];
  defaultLocale: string;
  defaultCurrency: string;
}

function publishingOf(form: FormData, current: Storefront): Publishing {
  const every = form.get('listing') !== 'rooms';
  return {
    listing: { roomIds: every ? null : lines(form.get('roomIds')) },
    allowedOrigins: lines(form.get('allowedOrigins')),
    defaultLocale: optional(form.get('defaultLocale')) ?? current.defaultLocale,
    defaultCurrency: optional(form.get('defaultCurrency'))?.toUpperCase() ?? current.defaultCurrency,
  };
}

/** The auctions the public surface lists now (published), a page of them. */
export function PublishedAuctions() {
  const auctions = useLoad(async () => {
    const { data } = await api.GET('/v1/auctions', { params: { query: { published: true, limit: 20 } } });
    return data;
  }, []);
  const page = auctions.data.value;
  if (auctions.error.value !== undefined) return <ErrorNotice error={auctions.error.value} />;
  if (page === undefined) return auctions.loading.value ? <Loading what="published auctions" /> : null;
  if (page.data.length === 0) {
    return (
      <EmptyState title="No auction is published.">
        <p>
          Publish one on its <Link to={tenantPath('auctions')}>auction page</Link> (or PATCH /v1/auctions/:id
          with published: true): it is listed once it is scheduled or live, if its room is listed.
        </p>
      </EmptyState>
    );
  }
  return (
    <ul class="commerce-list" aria-label="Published auctions">
      {page.data.map((auction) => (
        <li key={auction.id}>
          <Link to={tenantPath(`auctions/${encodeURIComponent(auction.id)}`)}>{auction.title}</Link> (
          {auction.status}, room {auction.roomId})
        </li>
      ))}
    </ul>
  );
}

/** Publishing: which rooms' published auctions are listed, allowed origins, default locale and currency. */
export function PublishingForm(props: {
  storefront: Storefront;
  save: (publishing: Publishing) => Promise<void>;
}) {
  const { storefront } = props;
  const every = useSignal(storefront.listing.roomIds === null);
  const error = useSignal<unknown>(undefined);
  const saved = useSignal(false);
  const errors = fieldErrors(error.value);
  return (
    <form
      class="commerce-form"
      aria-labelledby="publishing-title"
      onSubmit={async (event) => {
        event.preventDefault();
        saved.value = false;
        error.value = undefined;
        try {
          await props.save(publishingOf(new FormData(event.currentTarget), storefront));
          saved.value = true;
        } catch (caught) {
          error.value = caught;
        }
      }}
    >
      <h2 id="publishing-title">Publishing</h2>
      <fieldset class="commerce-fieldset">
        <legend>Which published auctions the storefront lists</legend>
        <label>
          <input
            type="radio"
            name="listing"
            value="every"
            checked={every.value}
            onChange={() => (every.value = true)}
          />{' '}
          Every room's
        </label>
        <label>
          <input
            type="radio"
            name="listing"
            value="rooms"
            checked={!every.value}
            onChange={() => (every.value = false)}
          />{' '}
          Only these rooms'
        </label>
        <Field label="Room ids, one a line" id="publishing-rooms" error={errors['listing.roomIds']}>
          <textarea
            id="publishing-rooms"
            name="roomIds"
            rows={3}
            disabled={every.value}
            defaultValue={(storefront.listing.roomIds ?? []).join('\n')}
          />
        </Field>
      </fieldset>
      <Field
        label="Allowed origins, one a line"
        id="publishing-origins"
        hint="Pages that may use the tenant's product keys, e.g. https://shop.example.com; empty: any"
        error={errors.allowedOrigins}
      >
        <textarea
          id="publishing-origins"
          name="allowedOrigins"
          rows={3}
          defaultValue={storefront.allowedOrigins.join('\n')}
        />
      </Field>
      <Field
        label="Default locale"
        id="publishing-locale"
        hint="BCP 47, e.g. en or pt-BR"
        error={errors.defaultLocale}
      >
        <input id="publishing-locale" name="defaultLocale" defaultValue={storefront.defaultLocale} />
      </Field>
      <Field
        label="Default currency"
        id="publishing-currency"
        hint="ISO 4217, e.g. EUR"
        error={errors.defaultCurrency}
      >
        <input id="publishing-currency" name="defaultCurrency" defaultValue={storefront.defaultCurrency} />
      </Field>
      <button type="submit">Save publishing</button>
      {saved.value ? (
        <p class="notice ok" role="status">
          Publishing saved.
        </p>
      ) : null}
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </form>
  );
}
