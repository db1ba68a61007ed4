export function CheckoutPage() {
  return (
    <section className="page">
      <h1>Checkout</h1>
      <p>Checking out will be available here.</p>
    </section>
  );
}
