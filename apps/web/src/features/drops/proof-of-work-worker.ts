// The join's proof-of-work runs here, off the page's thread (decision 069): altcha-lib's own
// worker, which answers { type: 'work', payload } with the number that solves the challenge.
import 'altcha-lib/v1/worker';
