/** The wishlist's heart, outlined or filled (the header's wishlist link and the heart button). */
export function HeartIcon({ filled }: { filled: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" className="heart-icon">
      <path
        d="M12 21s-7.5-4.6-9.5-9.3C1.1 8.3 3.2 4.5 6.9 4.5c2.1 0 3.6 1.1 4.6 2.7 1-1.6 2.5-2.7 4.6-2.7 3.7 0 5.8 3.8 4.4 7.2C19.5 16.4 12 21 12 21z"
        fill={filled ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth="2"
        strokeLinejoin="round"
      />
    </svg>
  );
}
