import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { tenantRoute } from '../../lib/router.tsx';
import { ErrorNotice, Loading, Page } from '../../lib/ui.tsx';
import { BrandForm } from './storefront-brand.tsx';
import { Operators } from './storefront-operators.tsx';
import { PublishedAuctions, type Publishing, PublishingForm } from './storefront-publishing.tsx';
import type { Storefront } from './types.ts';

/** What PUT takes back: the storefront's whole configuration (a field left out would go back to its default). */
function body(storefront: Storefront) {
  return {
    brand: storefront.brand,
    allowedOrigins: storefront.allowedOrigins,
    listing: { roomIds: storefront.listing.roomIds },
    defaultLocale: storefront.defaultLocale,
    defaultCurrency: storefront.defaultCurrency,
  };
}

/** The storefront: brand, publishing (listing, origins, defaults), and operators. */
export function StorefrontPage() {
  const tenantId = tenantRoute.value?.tenantId ?? '';
  const storefront = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/storefront', {
      params: { path: { tenantId } },
    });
    return data;
  }, [tenantId]);
  const current = storefront.data.value;
  const put = async (next: Storefront) => {
    const { data } = await api.PUT('/api/console/tenants/{tenantId}/storefront', {
      params: { path: { tenantId } },
      body: body(next),
    });
    storefront.data.value = data;
  };
  return (
    <Page title="Storefront">
      {storefront.error.value === undefined ? null : <ErrorNotice error={storefront.error.value} />}
      {current === undefined ? (
        storefront.loading.value ? (
          <Loading what="the storefront" />
        ) : null
      ) : (
        <div class="commerce-columns">
          <BrandForm brand={current.brand} save={(brand) => put({ ...current, brand })} />
          <div>
            <PublishingForm
              storefront={current}
              save={(publishing: Publishing) => put({ ...current, ...publishing })}
            />
            <section class="commerce-panel" aria-labelledby="published-title">
              <h2 id="published-title">Published auctions</h2>
              <PublishedAuctions />
            </section>
          </div>
        </div>
      )}
      <Operators />
    </Page>
  );
}
