export function OrderConfirmationPage() {
  return (
    <section className="page">
      <h1>Order confirmation</h1>
      <p>Details of your order will appear here.</p>
    </section>
  );
}
