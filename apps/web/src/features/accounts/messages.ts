/**
 * Texts of the account pages that the spec does not word itself. The spec's own
 * messages live in @storefront/domain/accounts.ts (SIGNUP_MESSAGES, LOGIN_MESSAGES).
 */
export const ACCOUNT_TEXTS = {
  sisterProducts: 'One account works across our three sister products: the music store, the video store and this shop.',
  signupDone: (email: string) =>
    email
      ? `Your account is ready. We sent a verification link to ${email}: open it, then log in.`
      : 'Your account is ready. We sent you a verification link: open it, then log in.',
  verified: 'Your email is verified. You can log in now.',
  failed: 'Something went wrong. Please try again.',
  resetInvalidLink: 'This password reset link is invalid or has expired.',
  resetInvalidHelp: 'Go back to the login page and choose Forgot Password? to get a new link.',
  resetDone: 'Your password has been changed. You can log in with it now.',
  passwordHint: 'At least 8 characters.',
  ssoContinue: 'Log in to continue to the app that sent you here.',
  ssoReturning: 'Signing you in to the app…',
} as const;

/** The account page (issue 17, decision 032). */
export const ACCOUNT_PAGE_TEXTS = {
  loadFailed: 'Your account could not be loaded.',
  tryAgain: 'Please check your connection and try again.',
  usernameFixed:
    'Your username is shared with our sister music and video products (your releases and followers use it there), so it cannot be changed. Your account type was chosen with the signup terms and cannot be changed here either.',
  nameRequired: 'Please enter your name.',
  saveFailed: 'Your profile could not be saved. Please try again.',
  profileSaved: 'Your profile has been saved.',
  emailFieldsMissing: 'Please enter your new email and your current password.',
  emailFailed: 'The confirmation link could not be sent. Please try again.',
  emailSent: (email: string) => `We sent a link to ${email}. Your email changes when you open that link (within 24 hours); until then you keep signing in with your current email.`,
  linkMissing: 'This link is not complete. Please open the link from the email again, or ask for a new one from your account page.',
  emailChanged: (email: string) => `Your email is now ${email}. Use it the next time you log in.`,
  emailConfirmFailed: 'Your new email could not be confirmed. Please try again.',
  passwordNote: 'Changing your password signs you out on every other device and app; you stay signed in here.',
  passwordFieldsMissing: 'Please fill in all three password fields.',
  passwordFailed: 'Your password could not be changed. Please try again.',
  passwordChanged: 'Your password has been changed. Every other session has been signed out.',
  addressesNote: 'Addresses you shipped to are saved for the checkout. Delete the ones you no longer want.',
  noAddresses: 'You have no saved addresses. The address of your next order will be saved here.',
  addressesFailed: 'Your saved addresses could not be loaded.',
  addressDeleted: 'Address deleted',
  addressDeleteFailed: 'The address could not be deleted. Please try again.',
  dataNote: 'A JSON file with your profile, your orders, your wallet and every entry of its history, and your saved addresses.',
  dataFailed: 'Your data could not be prepared. Please try again.',
  dataDone: 'Your data has been downloaded.',
  deleteIntro: 'What happens when you delete your account:',
  consequenceSignOut: 'You are signed out everywhere at once, here and in our sister music and video products, and the account can never be signed in to again.',
  consequenceWallet: (amount: string) => `Your wallet credit of ${amount} is given up: it cannot be paid out, refunded or moved to another account once the account is deleted.`,
  consequenceNoWallet: 'Your wallet is empty, so no credit is lost.',
  consequenceOrders: (orders: number, open: number) =>
    orders === 0
      ? 'You have no orders.'
      : `Your ${orders === 1 ? 'order is' : `${orders} orders are`} kept for the label’s records (sales and accounts), with the contact and shipping details given at checkout.${open > 0 ? ` ${open === 1 ? 'The order' : `The ${open} orders`} not shipped yet will still be shipped.` : ''}`,
  consequenceProfile:
    'Your name, email, city, country, saved addresses and follows are deleted. Your email address becomes free to sign up again; your username stays reserved so that no one else can take it.',
  consequenceDownload: 'If you want a copy of your data, download it first.',
  adminBlocked: 'An admin account cannot be deleted here. Ask another admin to take away your admin role first.',
  paymentBlocked: 'A card payment of yours is still in progress. Finish it or go back to checkout to cancel it, then delete your account.',
  summaryFailed: 'What deleting your account means could not be loaded.',
  deletePasswordMissing: 'Please enter your password.',
  deleteFailed: 'Your account could not be deleted. Please try again.',
  deleted: 'Your account has been deleted and you are signed out everywhere. Your orders stay with the label for its records. Thank you for shopping with us.',
} as const;
