import gzip, time, torch, numpy as np
rows = np.loadtxt(gzip.open('/work/wt/demo/data/digits/digits.csv.gz'), delimiter=',', dtype=np.int64)
torch.manual_seed(0)
order = torch.randperm(len(rows))
x = torch.tensor(rows[:, :64], dtype=torch.float32) / 16; y = torch.tensor(rows[:, 64])
tr, te = order[:1437], order[1437:]
xtr, ytr, xte, yte = x[tr], y[tr], x[te], y[te]
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64,128), torch.nn.ReLU(), torch.nn.Linear(128,10))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
t=time.perf_counter(); first=[]
for epoch in range(30):
    perm = torch.randperm(1437); s=0
    for b in range(0, 1437, 64):
        idx = perm[b:b+64]
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xtr[idx]), ytr[idx])
        loss.backward(); opt.step(); s += loss.item()*len(idx)
        if len(first) < 5: first.append(loss.item())
    print(epoch+1, round(s/1437, 4))
print("first steps", first)
with torch.no_grad(): print("acc", (model(xte).argmax(1)==yte).float().mean().item(), time.perf_counter()-t)
