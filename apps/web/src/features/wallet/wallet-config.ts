/**
 * The external billing portal behind Wallet Settings' Edit Billing Info (spec sections 2
 * and 7, "Other"): cards and invoices are managed there, not in this app.
 */
export const BILLING_PORTAL_URL = 'https://billing.example.com/p/login/street-flavor-records';
