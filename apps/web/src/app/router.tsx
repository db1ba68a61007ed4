import type { ComponentType } from 'react';
import { useRoutes, type RouteObject } from '../lib/router.tsx';
import { meQueryOptions } from '../lib/session.ts';
import { AppLayout } from './layout/app-layout.tsx';
import { usePageTitle } from '../lib/page-title.ts';
import { lazyPage } from './lazy-page.tsx';
import { paths, routePatterns } from '../lib/paths.ts';

/** A prefetch that failed costs nothing: the page asks again and shows its own error. */
const leaveItToThePage = () => undefined;

// A route list: one lazyPage line a screen, alike by design.
// Every screen is its own chunk: a visitor downloads only the pages they open. The shop's
// pages ask for their products while their code loads (the query is a chunk of its own).
const HomePage = lazyPage(() => import('../features/content/components/home-page.tsx').then((m) => m.HomePage));
const AboutPage = lazyPage(() => import('../features/content/components/about-page.tsx').then((m) => m.AboutPage));
const HistoryPage = lazyPage(() => import('../features/content/components/history-page.tsx').then((m) => m.HistoryPage));
const ContactPage = lazyPage(() => import('../features/content/components/contact-page.tsx').then((m) => m.ContactPage));
const PrivacyPolicyPage = lazyPage(() => import('../features/content/components/privacy-policy-page.tsx').then((m) => m.PrivacyPolicyPage));
const ShopPage = lazyPage(() => import('../features/catalog/components/shop-page.tsx').then((m) => m.ShopPage), {
  prefetch: (queryClient) => {
    import('../features/catalog/api/list-products.ts')
      .then((m) => queryClient.prefetchInfiniteQuery(m.productsQueryOptions(m.shopFilterFromSearch(new URLSearchParams(window.location.search)))))
      .catch(leaveItToThePage);
  },
});
const ProductPage = lazyPage(() => import('../features/catalog/components/product-page.tsx').then((m) => m.ProductPage), {
  prefetch: (queryClient, { id }) => {
    if (!id) return;
    import('../features/catalog/api/get-product.ts').then((m) => queryClient.prefetchQuery(m.productQueryOptions(id))).catch(leaveItToThePage);
  },
});
const ReleasePage = lazyPage(() => import('../features/admin/components/release-page.tsx').then((m) => m.ReleasePage), {
  // A console tab's first query starts as soon as the session check (the header's, shared) says
  // admin, not once the page has rendered and the tab's code has arrived (issue 39 item 18): the
  // Sales tab's overview. Not before: a signed-out visitor's 401 would be logged in the console.
  prefetch: (queryClient, { tab }) => {
    if (tab !== 'sales') return;
    const overview = import('../features/admin/api/sales-overview.ts');
    queryClient
      .fetchQuery(meQueryOptions())
      .then(async (me) => (me?.isAdmin ? (await overview).prefetchFirstSalesOverview(queryClient) : undefined))
      .catch(leaveItToThePage);
  },
});
const LoginPage = lazyPage(() => import('../features/accounts/components/login-page.tsx').then((m) => m.LoginPage));
const SignupPage = lazyPage(() => import('../features/accounts/components/signup-page.tsx').then((m) => m.SignupPage));
const ResetPasswordPage = lazyPage(() => import('../features/accounts/components/reset-password-page.tsx').then((m) => m.ResetPasswordPage));
const AccountPage = lazyPage(() => import('../features/accounts/components/account-page.tsx').then((m) => m.AccountPage));
const ConfirmEmailPage = lazyPage(() => import('../features/accounts/components/confirm-email-page.tsx').then((m) => m.ConfirmEmailPage));
const WalletPage = lazyPage(() => import('../features/wallet/components/wallet-page.tsx').then((m) => m.WalletPage));
const DatPage = lazyPage(() => import('../features/wallet/components/dat-page.tsx').then((m) => m.DatPage));
const CashoutPage = lazyPage(() => import('../features/wallet/components/cashout-page.tsx').then((m) => m.CashoutPage));
const CheckoutPage = lazyPage(() => import('../features/checkout/components/checkout-page.tsx').then((m) => m.CheckoutPage), {
  // The form is a chunk of its own, loaded once the visitor is known to be signed in.
  prefetch: (queryClient) => {
    if (queryClient.getQueryData(meQueryOptions().queryKey)) {
      import('../features/checkout/components/checkout-form.tsx').catch(leaveItToThePage);
    }
  },
});
const CartRestorePage = lazyPage(() => import('../features/checkout/components/cart-restore-page.tsx').then((m) => m.CartRestorePage));
const OrderConfirmationPage = lazyPage(() => import('../features/checkout/components/order-confirmation-page.tsx').then((m) => m.OrderConfirmationPage));
const MyOrdersPage = lazyPage(() => import('../features/orders/components/my-orders-page.tsx').then((m) => m.MyOrdersPage));
const MusicPage = lazyPage(() => import('../features/digital/components/music-page.tsx').then((m) => m.MusicPage));
const LibraryPage = lazyPage(() => import('../features/digital/components/library-page.tsx').then((m) => m.LibraryPage));
const RedeemPage = lazyPage(() => import('../features/digital/components/redeem-page.tsx').then((m) => m.RedeemPage));
const DropPage = lazyPage(() => import('../features/drops/components/drop-page.tsx').then((m) => m.DropPage));
const DropFairnessPage = lazyPage(() => import('../features/drops/components/drop-fairness-page.tsx').then((m) => m.DropFairnessPage));
const WaitlistPage = lazyPage(() => import('../features/drops/components/waitlist-page.tsx').then((m) => m.WaitlistPage));
const WaitlistLeavePage = lazyPage(() => import('../features/drops/components/waitlist-page.tsx').then((m) => m.WaitlistLeavePage));
const NotifyConfirmPage = lazyPage(() => import('../features/drops/components/notify-confirm-page.tsx').then((m) => m.NotifyConfirmPage));
const WishlistPage = lazyPage(() => import('../features/wishlist/components/wishlist-page.tsx').then((m) => m.WishlistPage));
const ArtistPage = lazyPage(() => import('../features/roster/components/artist-page.tsx').then((m) => m.ArtistPage));
const ArtistsPage = lazyPage(() => import('../features/roster/components/artists-page.tsx').then((m) => m.ArtistsPage));
const PortalPage = lazyPage(() => import('../features/portal/components/portal-page.tsx').then((m) => m.PortalPage));
const PortalAcceptPage = lazyPage(() => import('../features/portal/components/portal-accept-page.tsx').then((m) => m.PortalAcceptPage));
const NotFoundPage = lazyPage(() => import('./not-found-page.tsx').then((m) => m.NotFoundPage));

/** A route's page, which names the browser tab after itself (null: the page names it, after what it shows). */
function RoutePage({ title, page: Page }: { title: string | null; page: ComponentType }) {
  usePageTitle(title);
  return <Page />;
}

function page(path: string, title: string | null, Page: ComponentType): RouteObject {
  return { path, element: <RoutePage title={title} page={Page} /> };
}

/** Every route of spec section 2, plus a not-found page for anything else. */
export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    children: [
      page(paths.root, 'Home', HomePage),
      page(paths.home, 'Home', HomePage),
      page(paths.about, 'About', AboutPage),
      page(paths.history, 'History', HistoryPage),
      page(paths.shop, 'Shop', ShopPage),
      page(routePatterns.product, null, ProductPage),
      page(paths.contact, 'Contact', ContactPage),
      page(paths.orderConfirmation, 'Order confirmation', OrderConfirmationPage),
      page(paths.myOrders, 'My Orders', MyOrdersPage),
      page(paths.privacyPolicy, 'Privacy Policy', PrivacyPolicyPage),
      page(paths.login, 'Login', LoginPage),
      page(paths.signup, 'Sign up', SignupPage),
      page(paths.resetPassword, 'Reset password', ResetPasswordPage),
      page(paths.account, 'My account', AccountPage),
      page(paths.confirmEmail, 'Confirm your new email', ConfirmEmailPage),
      page(paths.wallet, 'Wallet', WalletPage),
      page(routePatterns.dat, 'DAT', DatPage),
      page(paths.cashout, 'Cash Out', CashoutPage),
      // Each console tab names the browser tab itself (issue 39).
      page(paths.release, null, ReleasePage),
      page(routePatterns.releaseTab, null, ReleasePage),
      page(routePatterns.releaseOrder, null, ReleasePage),
      page(routePatterns.releaseDrop, null, ReleasePage),
      page(paths.checkout, 'Checkout', CheckoutPage),
      page(paths.cartRestore, 'Your cart', CartRestorePage),
      page(routePatterns.music, null, MusicPage),
      page(paths.library, 'My music', LibraryPage),
      page(paths.redeem, 'Redeem a code', RedeemPage),
      page(routePatterns.drop, null, DropPage),
      page(routePatterns.dropFairness, null, DropFairnessPage),
      page(paths.waitlist, 'My waitlists', WaitlistPage),
      page(paths.waitlistLeave, 'Leave the waitlist', WaitlistLeavePage),
      page(paths.notifyConfirm, 'Notify me', NotifyConfirmPage),
      page(paths.wishlist, 'My wishlist', WishlistPage),
      page(routePatterns.artist, null, ArtistPage),
      page(paths.artists, 'Artists', ArtistsPage),
      page(paths.portal, 'My royalties', PortalPage),
      page(paths.portalAccept, 'Accept the invitation', PortalAcceptPage),
      page('*', 'Page not found', NotFoundPage),
    ],
  },
];

/**
 * The page for the current address. The router runs in its declarative mode (a
 * <BrowserRouter> in main.tsx): the app uses no loaders or actions, and the data router
 * weighed 18 KB more gzipped on every first load (decision 016).
 */
export function AppRoutes() {
  return useRoutes(routes);
}
