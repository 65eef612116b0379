import { lazyPage, type PageEntry } from '../page.ts';

/** The live area's pages (owned by that area; the order is the menu's): rooms and auctions. */
export const pages: PageEntry[] = [
  {
    path: 'rooms',
    component: lazyPage(() => import('./rooms.tsx'), 'RoomsPage'),
    nav: { label: 'Rooms', group: 'Live' },
  },
  { path: 'rooms/:roomId', component: lazyPage(() => import('./room.tsx'), 'RoomPage') },
  {
    path: 'auctions',
    component: lazyPage(() => import('./auctions.tsx'), 'AuctionsPage'),
    nav: { label: 'Auctions', group: 'Commerce' },
  },
  { path: 'auctions/:auctionId', component: lazyPage(() => import('./auction.tsx'), 'AuctionPage') },
];
