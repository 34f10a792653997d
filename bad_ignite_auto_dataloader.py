"""Fires: ignite's ``idist.auto_dataloader`` pins memory by default on a CUDA device
(``kwargs.get("pin_memory", "cuda" in idist.device().type)``), and the loop copies each
batch with a blocking ``.to(device)``."""
import ignite.distributed as idist
import torch
from torch.utils.data import TensorDataset


def main(model, optimizer):
    device = idist.device()
    dataset = TensorDataset(torch.zeros(64, 3), torch.zeros(64))
    loader = idist.auto_dataloader(dataset, batch_size=8, num_workers=4, shuffle=True)
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(device), y.to(device)  # DSL301
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
