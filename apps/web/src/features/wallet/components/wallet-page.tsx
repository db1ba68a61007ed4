export function WalletPage() {
  return (
    <section className="page">
      <h1>Wallet</h1>
      <p>Your wallet credits and tokens will appear here.</p>
    </section>
  );
}
