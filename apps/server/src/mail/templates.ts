import { BUNDLE_MESSAGES, partsText } from '@storefront/domain/bundles.ts';
import { receiptLines } from '@storefront/domain/receipts.ts';
import { trackingUrl } from '@storefront/domain/order-desk.ts';
import type { Mail } from './mailer.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { formatShipDate, preorderLabel, shipsWhen } from '@storefront/domain/preorders.ts';
import { escapeHtml } from '../http/html.ts';

/** The shop's plain transactional mails, as text and simple, well-formed HTML. */
const SHOP = 'Street Flavor Records';

function layout(title: string, paragraphs: string[], action?: { label: string; url: string }): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#e43f5a;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold">${escapeHtml(action.label)}</a></p><p style="font-size:12px;color:#666">Or open this link: ${escapeHtml(action.url)}</p>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${body}${button}</body></html>`;
}

export function verificationMail(to: string, name: string, url: string): Mail {
  const lines = [`Hi ${name},`, `Please confirm your email address to finish creating your ${SHOP} account.`];
  return {
    to,
    subject: `Verify your email for ${SHOP}`,
    text: `${lines.join('\n\n')}\n\n${url}\n\nIf you did not create an account, ignore this email.`,
    html: layout('Verify your email', [...lines, 'If you did not create an account, ignore this email.'], { label: 'Verify email', url }),
  };
}

export function passwordResetMail(to: string, name: string, url: string): Mail {
  const lines = [`Hi ${name},`, `Someone asked to reset the password of your ${SHOP} account.`];
  return {
    to,
    subject: `Reset your ${SHOP} password`,
    text: `${lines.join('\n\n')}\n\n${url}\n\nIf it was not you, ignore this email: your password stays as it is.`,
    html: layout('Reset your password', [...lines, 'If it was not you, ignore this email: your password stays as it is.'], { label: 'Choose a new password', url }),
  };
}

/**
 * Sent when an account's wrong-password allowance runs out (decision 043): the owner can
 * unlock sign-in from any browser, which then counts as a known device.
 */
export function signInLockedMail(to: string, name: string, url: string): Mail {
  const lines = [
    `Hi ${name},`,
    `Someone entered a wrong password for your ${SHOP} account many times, so signing in to it from new devices is slowed down for a while. Devices you signed in from before are not affected.`,
    'If it was you, open the link below to unlock signing in from this device. It works once, for an hour.',
  ];
  const notYou = 'If it was not you, your account is safe as long as your password is: consider choosing a new one with "Forgot Password?" on the sign-in page.';
  return {
    to,
    subject: `Sign-in to your ${SHOP} account was slowed down`,
    text: `${lines.join('\n\n')}\n\n${url}\n\n${notYou}`,
    html: layout('Sign-in to your account was slowed down', [...lines, notYou], { label: 'Unlock sign-in', url }),
  };
}

/**
 * Sent instead of a verification mail when someone signs up with an email that already has
 * an account: the owner learns of it, and the signup form still reveals nothing.
 */
export function accountExistsMail(to: string, name: string, loginUrl: string): Mail {
  const lines = [
    `Hi ${name},`,
    `Someone tried to sign up for a ${SHOP} account with your email address. You already have an account, so nothing was changed.`,
    'If it was you, sign in with your email and password. If you forgot your password, choose "Forgot Password?" on the sign-in page to get a reset link.',
  ];
  const notYou = 'If it was not you, ignore this email: your account and password stay as they are.';
  return {
    to,
    subject: `Someone tried to sign up with your email at ${SHOP}`,
    text: `${lines.join('\n\n')}\n\n${loginUrl}\n\n${notYou}`,
    html: layout('Someone tried to sign up with your email', [...lines, notYou], { label: 'Sign in', url: loginUrl }),
  };
}

export interface ReceiptOrder {
  id: string;
  /** A preorder line says when it ships; a bundle line lists its parts (issue 27, decisions 054, 055). */
  items: {
    name: string;
    qty: number;
    unitCents: number;
    shipsOn?: string | undefined;
    components?: { name: string; qty: number }[] | undefined;
    /** Nothing to ship (issue 28): a download or a gift card (`giftCard`, sent by email). */
    digital?: boolean | undefined;
    giftCard?: boolean | undefined;
  }[];
  totals: { subtotalCents: number; shippingCents: number; taxCents: number; walletAppliedCents: number; chargedCents: number; discountCents?: number };
  /** Issue 26: the tax line names its jurisdiction; VAT already in the prices is shown, not added. */
  tax?: { jurisdiction: string; includedCents: number; shippingMethod: string | null };
  /** The discount code used (issue 27). */
  discountCode?: string | null;
}

/** The receipt's sentences about delivery (issue 39). */
export const RECEIPT_TEXTS = {
  willShip: 'We will let you know when it ships.',
  giftCardSent: 'Your gift card is on its way to its recipient by email.',
} as const;

export function receiptMail(to: string, name: string, order: ReceiptOrder, ordersUrl: string, libraryUrl?: string): Mail {
  // A preorder line says when it ships (decision 054), and the order says when it all ships; a bundle line lists its parts (decision 055).
  const lines = order.items.map(
    (item) =>
      `${item.qty} × ${item.name}${item.shipsOn ? ` (${preorderLabel(item.shipsOn)})` : ''} — ${formatUsd(item.unitCents * item.qty)}${item.components?.length ? ` (${BUNDLE_MESSAGES.includes.toLowerCase()}: ${partsText(item.components)})` : ''}`,
  );
  const when = shipsWhen(order.items);
  // The money lines add up (issue 39): the total, then the wallet's part and the card fee to the charge.
  const summary = receiptLines(order.totals, order.tax, order.discountCode).map((line) => `${line.label} ${formatUsd(line.cents)}`);
  // Digital items (issue 28): the music is in the buyer's library at once.
  const library = libraryUrl ? [`Your music is ready to download in your library: ${libraryUrl}`] : [];
  // Only a parcel ships (issue 39): a download is in the library, a gift card goes to its recipient by email.
  const ships = order.items.some((item) => !item.digital);
  const giftCards = order.items.some((item) => item.giftCard) ? [RECEIPT_TEXTS.giftCardSent] : [];
  const paragraphs = [
    `Hi ${name},`,
    `Thank you for your order ${order.id}.`,
    ...lines,
    ...summary,
    ...library,
    ...giftCards,
    ...(when ? [when] : []),
    ...(ships ? [RECEIPT_TEXTS.willShip] : []),
  ];
  return {
    to,
    subject: `Your ${SHOP} order ${order.id}`,
    text: `${paragraphs.join('\n')}\n\n${ordersUrl}`,
    html: layout('Your order', paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

export function shippedMail(to: string, name: string, orderId: string, ordersUrl: string, tracking: { carrier: string; number: string } | null = null): Mail {
  const link = tracking ? trackingUrl(tracking.carrier, tracking.number) : null;
  const paragraphs = [
    `Hi ${name},`,
    `Good news: your order ${orderId} has shipped.`,
    ...(tracking ? [`Carrier: ${tracking.carrier}. Tracking number: ${tracking.number}.`] : []),
    ...(link ? [`Track it: ${link}`] : []),
  ];
  return {
    to,
    subject: `Your ${SHOP} order ${orderId} has shipped`,
    text: `${paragraphs.join('\n\n')}\n\n${ordersUrl}`,
    html: layout('Your order has shipped', paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

/** A card payment that came after its checkout's hold ended, for stock that was gone by then (issue 15). */
export function lateRefundMail(to: string, name: string, refund: { items: { name: string; qty: number }[]; chargedCents: number; walletCents: number }, shopUrl: string): Mail {
  const lines = [
    `Hi ${name},`,
    `Your payment arrived after your checkout had expired, and by then ${refund.items.map((item) => `${item.qty} × ${item.name}`).join(', ')} had sold out. No order was made.`,
    `We refunded ${formatUsd(refund.chargedCents)} to your card; it can take 5 to 10 days to appear on your statement.`,
    ...(refund.walletCents > 0 ? [`The ${formatUsd(refund.walletCents)} of wallet credit set aside for this checkout is back in your wallet.`] : []),
    'We are sorry. Restocks are announced in the shop.',
  ];
  return {
    to,
    subject: `Your payment was refunded - ${SHOP}`,
    text: `${lines.join('\n\n')}\n\n${shopUrl}`,
    html: layout('Your payment was refunded', lines, { label: 'Visit the shop', url: shopUrl }),
  };
}

export function refundMail(to: string, name: string, refund: { orderId: string; walletCents: number; cardCents: number; full: boolean }, ordersUrl: string): Mail {
  const parts = [
    ...(refund.cardCents > 0 ? [`${formatUsd(refund.cardCents)} back to your card (it can take 5 to 10 days to appear)`] : []),
    ...(refund.walletCents > 0 ? [`${formatUsd(refund.walletCents)} back to your wallet, available now`] : []),
  ];
  const paragraphs = [`Hi ${name},`, `We have ${refund.full ? 'refunded' : 'partly refunded'} your order ${refund.orderId}:`, ...parts];
  return {
    to,
    subject: `Your ${SHOP} order ${refund.orderId} was ${refund.full ? 'refunded' : 'partly refunded'}`,
    text: `${paragraphs.join('\n')}\n\n${ordersUrl}`,
    html: layout('Your refund', paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

/**
 * A card refund the buyer was mailed about failed at the provider afterwards (decision 034): the
 * buyer hears that it did not arrive and that the shop sends it again; a wallet part stays back.
 */
export function refundFailedMail(to: string, name: string, refund: { orderId: string; cardCents: number; reason: string }, ordersUrl: string): Mail {
  const paragraphs = [
    `Hi ${name},`,
    `The ${formatUsd(refund.cardCents)} we refunded to your card for order ${refund.orderId} did not reach it: the payment provider returned it (${refund.reason}).`,
    'We will send it again and email you when it is on its way. Anything refunded to your wallet stays there.',
  ];
  return {
    to,
    subject: `The card refund of your ${SHOP} order ${refund.orderId} did not go through`,
    text: `${paragraphs.join('\n')}\n\n${ordersUrl}`,
    html: layout('Your card refund did not go through', paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

/** To the new address of an email change (decision 032): the change happens only when the link is followed. */
export function emailChangeMail(to: string, name: string, url: string): Mail {
  const lines = [`Hi ${name},`, `You asked to use this address for your ${SHOP} account. Your email changes only when you confirm it with the link below (valid for 24 hours).`];
  const notYou = 'If it was not you, ignore this email: nothing changes.';
  return {
    to,
    subject: `Confirm your new email for ${SHOP}`,
    text: `${lines.join('\n\n')}\n\n${url}\n\n${notYou}`,
    html: layout('Confirm your new email', [...lines, notYou], { label: 'Confirm new email', url }),
  };
}

/** To the current address when a change to another one is asked for. */
export function emailChangeNoticeMail(to: string, name: string, newEmail: string, accountUrl: string): Mail {
  const lines = [
    `Hi ${name},`,
    `Someone signed in to your ${SHOP} account asked to change its email to ${newEmail}. The email changes only if the link sent to that address is followed.`,
    'If it was not you, change your password on your account page now: that signs out every other session.',
  ];
  return {
    to,
    subject: `Your ${SHOP} email is about to change`,
    text: `${lines.join('\n\n')}\n\n${accountUrl}`,
    html: layout('Your email is about to change', lines, { label: 'Open my account', url: accountUrl }),
  };
}

/** To an address that already has an account, when another account asked to move to it: nothing changes. */
export function emailInUseMail(to: string, name: string): Mail {
  const lines = [
    `Hi ${name},`,
    `Someone asked to move another ${SHOP} account to this email address. This address already has an account, so nothing was changed.`,
    'If it was you, sign in with this address instead, or delete one of the two accounts first.',
  ];
  return { to, subject: `Your email at ${SHOP}`, text: lines.join('\n\n'), html: layout('Your email at the shop', lines) };
}

/** After a password change from the account page. */
export function passwordChangedMail(to: string, name: string, accountUrl: string): Mail {
  const lines = [
    `Hi ${name},`,
    `The password of your ${SHOP} account was changed, and every other session was signed out.`,
    'If it was not you, choose "Forgot Password?" on the sign-in page to set a new one at once.',
  ];
  return {
    to,
    subject: `Your ${SHOP} password was changed`,
    text: `${lines.join('\n\n')}\n\n${accountUrl}`,
    html: layout('Your password was changed', lines, { label: 'Open my account', url: accountUrl }),
  };
}

/** To the address of an account just deleted. */
export function accountDeletedMail(to: string, name: string): Mail {
  const lines = [
    `Hi ${name},`,
    `Your ${SHOP} account has been deleted and signed out everywhere. It cannot be signed in to again. Your orders are kept for the label's records, and any wallet credit it held is gone.`,
    'You are welcome to create a new account with this address at any time.',
  ];
  return { to, subject: `Your ${SHOP} account was deleted`, text: lines.join('\n\n'), html: layout('Your account was deleted', lines) };
}

/** The release job's one mail per buyer and item (decision 054): the preorder is out and ships now. */
export function preorderReleasedMail(to: string, name: string, item: { name: string; orderIds: string[] }, ordersUrl: string): Mail {
  const paragraphs = [
    `Hi ${name},`,
    `It's out: ${item.name} is released today, and your preorder is shipping.`,
    `Order${item.orderIds.length > 1 ? 's' : ''} ${item.orderIds.join(', ')}. We will send the tracking number when the parcel leaves.`,
  ];
  return {
    to,
    subject: `It's out: ${item.name} is shipping`,
    text: `${paragraphs.join('\n\n')}\n\n${ordersUrl}`,
    html: layout("It's out, it's shipping", paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

/** The label moved a preorder's street date (decision 054): its buyers are told once per new date. */
export function preorderMovedMail(to: string, name: string, item: { name: string; from: string; to: string; orderIds: string[] }, ordersUrl: string): Mail {
  const paragraphs = [
    `Hi ${name},`,
    `The release date of ${item.name} has moved from ${formatShipDate(item.from)} to ${formatShipDate(item.to)}. Your preorder now ships on ${formatShipDate(item.to)}.`,
    `Order${item.orderIds.length > 1 ? 's' : ''} ${item.orderIds.join(', ')}. Nothing else changes; you have already paid.`,
  ];
  return {
    to,
    subject: `New release date for ${item.name}: ${formatShipDate(item.to)}`,
    text: `${paragraphs.join('\n\n')}\n\n${ordersUrl}`,
    html: layout('New release date', paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

/** One parcel of an order shipped in parts (decision 054): its lines and tracking; the last one says so. */
export function shippedPartMail(
  to: string,
  name: string,
  part: { orderId: string; lines: { name: string; qty: number }[]; last: boolean },
  ordersUrl: string,
  tracking: { carrier: string; number: string } | null = null,
): Mail {
  const link = tracking ? trackingUrl(tracking.carrier, tracking.number) : null;
  const paragraphs = [
    `Hi ${name},`,
    `Part of your order ${part.orderId} has shipped: ${part.lines.map((line) => `${line.qty} × ${line.name}`).join(', ')}.`,
    part.last ? 'This is the last part: everything in your order is on its way.' : 'The rest of your order follows in its own parcel.',
    ...(tracking ? [`Carrier: ${tracking.carrier}. Tracking number: ${tracking.number}.`] : []),
    ...(link ? [`Track it: ${link}`] : []),
  ];
  return {
    to,
    subject: `Part of your ${SHOP} order ${part.orderId} has shipped`,
    text: `${paragraphs.join('\n\n')}\n\n${ordersUrl}`,
    html: layout('Part of your order has shipped', paragraphs, { label: 'View my orders', url: ordersUrl }),
  };
}

/** The public sign-up form's double opt-in (issue 37, decision 074): nothing is sent until this link is confirmed. */
export function newsConfirmMail(to: string, confirmUrl: string, leaveUrl: string): Mail {
  const lines = [
    `Someone asked to get news from ${SHOP} at this address: new releases, merch and shows.`,
    'Confirm it with the link below. If it was not you, ignore this email: nothing is sent.',
  ];
  return {
    to,
    subject: `Confirm your news from ${SHOP}`,
    text: `${lines.join('\n\n')}\n\n${confirmUrl}\n\nChanged your mind later? Stop the news here: ${leaveUrl}`,
    html: layout('Confirm your news', [...lines, `Changed your mind later? Stop the news here: ${leaveUrl}`], { label: 'Confirm', url: confirmUrl }),
  };
}
