export function MyOrdersPage() {
  return (
    <section className="page">
      <h1>My Orders</h1>
      <p>Your orders will appear here.</p>
    </section>
  );
}
